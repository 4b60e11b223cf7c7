/**
 * The session binding (`.peaks/_runtime/session.json`) and a session's meta
 * file: the title bound and the zod schemas. lib/session/ reads and writes them.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";

/** The longest session title, in characters. */
export const TITLE_MAX = 120;

/** At most TITLE_MAX characters (code points, as the `u` flag counts them). */
const TITLE_PATTERN = new RegExp(`^[\\s\\S]{0,${TITLE_MAX}}$`, "u");

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const sessionSchemas = schemas((z: Zod) => {
  const SessionBindingSchema = z.object({
    sessionId: z.string(),
    createdAt: z.string(),
    projectRoot: z.string(),
  });

  const SessionMetaSchema = z.object({
    sessionId: z.string(),
    createdAt: z.string(),
    lastActivity: z.string(),
    title: z.string().regex(TITLE_PATTERN, `at most ${TITLE_MAX} characters`)
      .optional(),
  });
  return { SessionBindingSchema, SessionMetaSchema };
});
type Built = ReturnType<typeof sessionSchemas>;
export type SessionBinding = z.infer<Built["SessionBindingSchema"]>;
export type SessionMeta = z.infer<Built["SessionMetaSchema"]>;
