/** Release scripts fail with one readable message and an exit code, never a stack trace. */

export class ReleaseError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = "ReleaseError";
  }
}

/** Runs a script's main function and turns any failure into `error: <message>` on stderr. */
export async function runMain(main: () => Promise<void>): Promise<never> {
  try {
    await main();
    Deno.exit(0);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`error: ${message}`);
    Deno.exit(error instanceof ReleaseError ? error.exitCode : 1);
  }
}
