/**
 * What `deno task bench` times. Each scenario prepares a project once and
 * then runs one peaks command line in it, as an agent would.
 */
export interface Scenario {
  name: string;
  args: string[];
  stdin?: string;
  /** Prepares the project; `peaks` runs a command in it and returns its JSON envelope. */
  setup?: (peaks: (args: string[]) => Promise<unknown>) => Promise<void>;
  /** Expected to exit non-zero (e.g. a refusal); failures are not reported then. */
  expectFailure?: boolean;
}

const withWorkspace = async (peaks: (args: string[]) => Promise<unknown>) => {
  await peaks(["workspace", "init", "--json"]);
  await peaks(["skill", "presence:set", "peaks-code", "--gate", "startup", "--json"]);
};

export const SCENARIOS: Scenario[] = [
  { name: "--version", args: ["--version"] },
  {
    name: "session info --active --json",
    args: ["session", "info", "--active", "--json"],
    setup: withWorkspace,
  },
  { name: "skill presence --json", args: ["skill", "presence", "--json"], setup: withWorkspace },
  {
    name: "statusline render",
    args: ["statusline", "render"],
    stdin: JSON.stringify({ context_window: { used_percentage: 41 } }),
    setup: withWorkspace,
  },
];
