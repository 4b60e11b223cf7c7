/** The error code reference (docs/errors.md), generated from lib/infra/error_codes.ts. */
import { type CodeEntry, ERROR_CODES } from "../lib/infra/error_codes.ts";

const EXIT_WORDS: Record<string, string> = {
  "1": "1 (failed)",
  "2": "2 (usage)",
  "3": "3 (gate)",
  warning: "warning",
};

function cell(text: string): string {
  return text.replaceAll("|", "\\|");
}

export function errorReference(): string {
  const lines = [
    "# Error and warning codes",
    "",
    "Generated from `lib/infra/error_codes.ts` by `deno task docs`; a test keeps it in sync, and",
    "another fails when `lib/` uses a code this list does not hold.",
    "",
    "A failing command prints an envelope with `ok: false`, `error.code`, `error.message` and",
    "`nextActions`, and exits with the code below: 1 = the step failed, 2 = the input is wrong",
    "(usage), 3 = a gate refused the step (see the glossary in architecture.md). A code marked",
    "`warning` also or only appears in `warnings` of an envelope that succeeded (exit 0).",
    "",
    "| Code | Exit | Meaning | Repair |",
    "| --- | --- | --- | --- |",
  ];
  for (const [code, entry] of Object.entries(ERROR_CODES) as [string, CodeEntry][]) {
    const [exits, meaning, repair] = entry;
    const exit = exits.map((e) => EXIT_WORDS[String(e)]).join(", ");
    lines.push(`| \`${code}\` | ${exit} | ${cell(meaning)} | ${cell(repair)} |`);
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  await Deno.writeTextFile(new URL("../docs/errors.md", import.meta.url), errorReference());
}
