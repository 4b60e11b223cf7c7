/** One benchmark scenario: a project prepared once, then one timed peaks command line. */
export interface Scenario {
  name: string;
  args: string[];
  stdin?: string;
  /**
   * Prepares the project; `peaks` runs a command in it and returns its JSON
   * envelope; `project` is the folder, for files no command writes.
   */
  setup?: (peaks: (args: string[]) => Promise<unknown>, project: string) => Promise<void>;
  /** Expected to exit non-zero (e.g. a refusal); failures are not reported then. */
  expectFailure?: boolean;
}
