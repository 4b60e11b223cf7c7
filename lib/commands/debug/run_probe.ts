/**
 * Hidden plumbing that shows the binary's run permission at work: it asks
 * the runtime whether a program may be started and, only when the answer is
 * "denied", tries to start it so the refusal comes back as the envelope every
 * command gives (PERMISSION_DENIED). A program the permission set allows is
 * reported, never started.
 */
import { defineCommand } from "../../infra/command/spec.ts";
import { isNotFound, PeaksError, usageError } from "../../infra/errors.ts";
import { printable } from "../../infra/ids.ts";

export default defineCommand({
  name: "debug run-probe",
  description:
    "Reports whether the binary may start <program>; a denied program is attempted so the runtime refuses " +
    "it (PERMISSION_DENIED, exit 1). An allowed program is never started.",
  args: [{ name: "program", description: "Program name or path.", required: true }],
  flags: {},
  examples: ["peaks debug run-probe sh --json"],
  async run({ args }) {
    const program = args.program!;
    // deno-lint-ignore no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(program)) {
      throw usageError("INVALID_ARGUMENT", "<program> must not contain control characters.", {
        data: { argument: "program" },
      });
    }
    const { state } = await Deno.permissions.query({ name: "run", command: program });
    if (state === "denied" || state === "prompt") {
      try {
        // Refused by the runtime before anything starts; the kernel turns it into the envelope.
        new Deno.Command(program, { stdin: "null", stdout: "null", stderr: "null" }).spawn();
      } catch (error) {
        if (!isNotFound(error)) throw error;
        throw new PeaksError("PROGRAM_NOT_FOUND", `${printable(program)} is not on PATH.`, {
          data: { program: printable(program) },
        });
      }
    }
    return {
      data: { program: printable(program), permission: state, started: false },
      human: `${printable(program)}: run permission ${state} (not started)`,
    };
  },
});
