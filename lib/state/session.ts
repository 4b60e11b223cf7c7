/** The zod schemas of the session binding and a session's meta file (session.ts). */
import { z } from "../infra/zod.ts";

export const SessionBindingSchema = z.object({
  sessionId: z.string(),
  createdAt: z.string(),
  projectRoot: z.string(),
});
export type SessionBinding = z.infer<typeof SessionBindingSchema>;

/** The longest session title, in characters. */
export const TITLE_MAX = 120;

/** At most TITLE_MAX characters (code points, as the `u` flag counts them). */
const TITLE_PATTERN = new RegExp(`^[\\s\\S]{0,${TITLE_MAX}}$`, "u");

export const SessionMetaSchema = z.object({
  sessionId: z.string(),
  createdAt: z.string(),
  lastActivity: z.string(),
  title: z.string().regex(TITLE_PATTERN, `at most ${TITLE_MAX} characters`)
    .optional(),
});
export type SessionMeta = z.infer<typeof SessionMetaSchema>;
