/**
 * Checks GitHub workflow files against the workflow schema with a pinned @action-validator/cli
 * (WebAssembly, offline once fetched), run through npx so nothing is installed into the
 * repository; npx keeps it in the npm cache. Part of `deno task check`.
 *
 *   deno run -q --allow-read=.github --allow-run=npx,npx.cmd .ci/check_workflows.ts [<file>...]
 *
 * Without arguments it checks every .yml/.yaml file in .github/workflows/. Exits 1 when a file
 * fails, naming it and the validator's findings.
 */

export const VALIDATOR = "@action-validator/cli@0.6.0";
/** The validator's WebAssembly core, its peer dependency at the same version. */
export const VALIDATOR_CORE = "@action-validator/core@0.6.0";

const npx = Deno.build.os === "windows" ? "npx.cmd" : "npx";

export async function workflowFiles(dir = ".github/workflows"): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && /\.ya?ml$/.test(entry.name)) files.push(`${dir}/${entry.name}`);
  }
  return files.sort();
}

/** Runs the validator on one file: its exit code and everything it printed. */
export async function validate(file: string): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(npx, {
    args: [
      "--yes",
      `--package=${VALIDATOR}`,
      `--package=${VALIDATOR_CORE}`,
      "action-validator",
      file,
    ],
    env: { NO_COLOR: "1", npm_config_update_notifier: "false" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, output: (decode(out.stdout) + decode(out.stderr)).trim() };
}

if (import.meta.main) {
  const files = Deno.args.length ? Deno.args : await workflowFiles();
  let failed = 0;
  for (const file of files) {
    const { code, output } = await validate(file);
    if (code === 0) continue;
    failed++;
    console.error(`${file}: not a valid workflow (${VALIDATOR})\n${output}`);
  }
  if (failed) Deno.exit(1);
  console.log(`${files.length} workflow files valid (${VALIDATOR})`);
}
