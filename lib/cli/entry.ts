/**
 * One row of the command table. Apart from the table itself so the modules
 * the table loads (completions) can name the type without importing the table.
 */
import type { AnyCommand } from "../infra/command/spec.ts";

export interface CommandEntry {
  /** Words as typed: "sub-agent dispatch". */
  name: string;
  summary: string;
  load: () => Promise<{ default: AnyCommand }>;
  /** Plumbing that users and skills never call directly. */
  hidden?: boolean;
}
