/**
 * zod, configured once for a short-lived process: each call parses a handful
 * of values once, so compiling a fast path per schema costs more than it
 * saves. Every module imports zod from here.
 */
import { z } from "zod";

z.config({ jitless: true });

export { z };
