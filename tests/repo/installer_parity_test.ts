/**
 * install.sh and install.ps1 offer the same options and environment
 * variables, and both pass the syntax checks this machine can run:
 * shellcheck for the sh script, PowerShell's own parser when pwsh exists,
 * and a structural check of install.ps1 everywhere.
 */
import { assert, assertEquals } from "@std/assert";
import { stampInstaller } from "../../release/installers.ts";
import { INSTALL_PS1, INSTALL_SH } from "../support/release.ts";
import { needs } from "../support/tools.ts";
import { tempDir } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";

const sh = await Deno.readTextFile(INSTALL_SH);
const ps1 = await Deno.readTextFile(INSTALL_PS1);

/** Long options the sh argument loop accepts, without the leading dashes. */
function shOptions(text: string): string[] {
  const loop = text.slice(text.indexOf("while [ $# -gt 0 ]; do"), text.indexOf("\ndone\n"));
  return [...new Set([...loop.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]))].sort();
}

/** Parameters of the ps1 param() block. */
function psParameters(text: string): string[] {
  const block = text.slice(text.indexOf("param("), text.indexOf("\n)\n"));
  return [...block.matchAll(/\[(?:string|switch)\]\$(\w+)/g)].map((m) => m[1]).sort();
}

const pascal = (option: string) =>
  option.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join("");

const envNames = (text: string) => [...new Set(text.match(/PEAKS_[A-Z_]+/g))].sort();

Deno.test("install.sh and install.ps1 take the same options", () => {
  const options = shOptions(sh);
  assertEquals(options, [
    "archive",
    "checksums",
    "help",
    "no-modify-path",
    "uninstall",
    "version",
    "yes",
  ]);
  assertEquals(psParameters(ps1), options.map(pascal).sort());
});

Deno.test("install.sh and install.ps1 read the same environment variables", () => {
  // PEAKS_TEST_PATH_STORE is install.ps1's test seam for the Windows user PATH, not an option.
  assertEquals(envNames(sh), envNames(ps1).filter((name) => name !== "PEAKS_TEST_PATH_STORE"));
  assertEquals(envNames(sh), [
    "PEAKS_ARCHIVE",
    "PEAKS_CHECKSUMS",
    "PEAKS_DOWNLOAD_BASE",
    "PEAKS_HOME",
    "PEAKS_VERSION",
  ]);
});

Deno.test("both help texts document every option", async () => {
  const help = await new Deno.Command("sh", { args: [INSTALL_SH, "--help"], stdout: "piped" })
    .output().catch(() => undefined);
  const usage = ps1.slice(ps1.indexOf("$Usage = @'"), ps1.indexOf("'@"));
  for (const option of shOptions(sh)) {
    if (help) assert(new TextDecoder().decode(help.stdout).includes(`--${option}`), option);
    assert(usage.includes(`-${pascal(option)}`), pascal(option));
  }
});

const shellcheck = await needs("shellcheck");
const pwsh = await needs("pwsh");

Deno.test({
  name: `install.sh passes shellcheck as POSIX sh${shellcheck.note}`,
  ignore: shellcheck.ignore,
  async fn() {
    const out = await new Deno.Command("shellcheck", {
      args: ["-s", "sh", INSTALL_SH],
      stdout: "piped",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stdout));
  },
});

Deno.test({
  name: `install.ps1 parses with PowerShell's parser${pwsh.note}`,
  ignore: pwsh.ignore,
  async fn() {
    const script = "$errors = $null; " +
      "[System.Management.Automation.Language.Parser]::ParseFile($args[0], [ref]$null, [ref]$errors)" +
      " | Out-Null; $errors | ForEach-Object { $_.ToString() }; exit $errors.Count";
    const out = await new Deno.Command("pwsh", {
      args: ["-NoProfile", "-NonInteractive", "-Command", script, INSTALL_PS1],
      stdout: "piped",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stdout));
  },
});

/** Brackets, quotes, here-strings and comments of PowerShell, enough to find an unclosed one. */
function psStructureErrors(text: string): string[] {
  const errors: string[] = [];
  const stack: { char: string; line: number }[] = [];
  const pairs: Record<string, string> = { ")": "(", "}": "{", "]": "[" };
  let line = 1;
  let i = 0;
  const advanceTo = (end: number) => {
    for (; i < end; i++) if (text[i] === "\n") line++;
  };
  while (i < text.length) {
    const c = text[i];
    const rest = text.slice(i);
    if (rest.startsWith("@'\n") || rest.startsWith('@"\n')) {
      const close = text.indexOf(`\n${c === "@" ? text[i + 1] : ""}@`, i + 3);
      if (close === -1) return [...errors, `unclosed here-string at line ${line}`];
      advanceTo(close + 3);
    } else if (rest.startsWith("<#")) {
      const close = text.indexOf("#>", i);
      if (close === -1) return [...errors, `unclosed block comment at line ${line}`];
      advanceTo(close + 2);
    } else if (c === "#") {
      const close = text.indexOf("\n", i);
      advanceTo(close === -1 ? text.length : close);
    } else if (c === "'") {
      let j = i + 1;
      while (j < text.length && !(text[j] === "'" && text[j + 1] !== "'")) {
        j += text[j] === "'" ? 2 : 1;
      }
      if (j >= text.length) return [...errors, `unclosed ' string at line ${line}`];
      advanceTo(j + 1);
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "`" ? 2 : 1;
      if (j >= text.length) return [...errors, `unclosed " string at line ${line}`];
      advanceTo(j + 1);
    } else if (c === "`") {
      advanceTo(i + 2);
    } else {
      if ("({[".includes(c)) stack.push({ char: c, line });
      if (")}]".includes(c)) {
        const open = stack.pop();
        if (open?.char !== pairs[c]) errors.push(`unbalanced ${c} at line ${line}`);
      }
      advanceTo(i + 1);
    }
  }
  for (const open of stack) errors.push(`unclosed ${open.char} from line ${open.line}`);
  return errors;
}

const CMDLETS = new Set([
  "Copy-Item",
  "Expand-Archive",
  "ForEach-Object",
  "Get-ChildItem",
  "Get-Content",
  "Get-FileHash",
  "Invoke-WebRequest",
  "Join-Path",
  "Move-Item",
  "New-Item",
  "Out-Null",
  "Out-String",
  "Select-Object",
  "New-Object",
  "Read-Host",
  "Remove-Item",
  "Resolve-Path",
  "Split-Path",
  "Test-Path",
  "Where-Object",
  "Write-Host",
  "Write-Output",
]);

Deno.test("install.ps1 is well formed and calls only functions it defines or known cmdlets", () => {
  assertEquals(psStructureErrors(ps1), []);
  assertEquals(psStructureErrors("if ($a) { Write-Host 'x' "), ["unclosed { from line 1"]);
  const defined = new Set([...ps1.matchAll(/^\s*function ([\w-]+)/gm)].map((m) => m[1]));
  const code = ps1.replace(/@'[\s\S]*?'@/g, "").replace(/^\s*#.*$/gm, "");
  const called = new Set(
    [...code.matchAll(/\b([A-Z][a-z]+-[A-Z][A-Za-z0-9]+)\b/g)].map((m) => m[1]),
  );
  const unknown = [...called].filter((name) => !defined.has(name) && !CMDLETS.has(name));
  assertEquals(unknown, []);
  for (const name of ["Fail", "Say"]) assert(defined.has(name), name);
});

const STAMP_URL = "https://github.com/example/peaks/releases";

Deno.test("the release copies of the installers carry the releases address", () => {
  const stampedSh = stampInstaller("install.sh", sh, `${STAMP_URL}/`);
  assert(stampedSh.includes(`default_download_base='${STAMP_URL}'\n`));
  const stampedPs1 = stampInstaller("install.ps1", ps1, STAMP_URL);
  assert(stampedPs1.includes(`$DefaultDownloadBase = '${STAMP_URL}'\n`));
  assertEquals(psStructureErrors(stampedPs1), []);
  let refused = false;
  try {
    stampInstaller("install.sh", sh, "https://example.com/it's");
  } catch {
    refused = true;
  }
  assert(refused, "a quote in the address must be refused");
});

Deno.test({
  name: `the release copy of install.sh passes shellcheck${shellcheck.note}`,
  ignore: shellcheck.ignore,
  async fn() {
    await using dir = await tempDir();
    await Deno.writeTextFile(
      join(dir.path, "install.sh"),
      stampInstaller("install.sh", sh, `${STAMP_URL}/`),
    );
    const out = await new Deno.Command("shellcheck", {
      args: ["-s", "sh", join(dir.path, "install.sh")],
      stdout: "piped",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stdout));
  },
});

Deno.test("both installers leave a same-version install alone, with the same words", () => {
  const said = "is already installed in";
  for (const [name, text] of [["install.sh", sh], ["install.ps1", ps1]]) {
    assert(text.includes(`${said} $`) && text.includes("; nothing to replace"), name);
    // The "installed" line is only printed when something was moved into place.
    assert(/unchanged.*\n?.*installed peaks/.test(text), `${name}: installed line is not guarded`);
  }
  assert(sh.includes("if same_install; then"));
  assert(ps1.includes("$unchanged = Test-SameInstall $PeaksHome $new $files $archiveVersion"));
});

Deno.test("both installers list every file they put in place, the plugin manifests among them", () => {
  assert(sh.includes(`sed 's/^/file=/' "$stage_dir/files"`));
  assert(ps1.includes('foreach ($file in $files) { $lines += "file=$file" }'));
  for (const [name, text] of [["install.sh", sh], ["install.ps1", ps1]]) {
    assert(text.includes("mkdir="), `${name}: folders it created are listed`);
  }
});

Deno.test("both installers refuse to replace what they did not put there, with the same words", () => {
  const said = "already holds files this installer did not put there: ";
  assert(sh.includes(`${said}$conflicts`));
  assert(ps1.includes(`${said}$($conflicts -join ', ')`));
  assert(sh.indexOf("    check_conflicts\n    place_files\n") !== -1, "checked before moving");
  const check = ps1.indexOf("$conflicts = Get-Conflicts");
  const move = ps1.indexOf("Move-IntoPlace $PeaksHome");
  assert(check !== -1 && check < move, "install.ps1 checks before it moves anything");
});

Deno.test("neither uninstall takes away what was there before the install", () => {
  // install.sh: a profile it did not create is kept, emptied at most.
  assert(sh.includes('[ "$2" = created-profile ]'));
  assert(sh.includes('"$profile_kind=$profile"'));
  // install.ps1: the user PATH entry is listed only when this installer added it.
  const added = ps1.indexOf("if (Update-UserPath $store $bin $true) {");
  const listed = ps1.indexOf('$pathEntries += "path=$bin"');
  const otherwise = ps1.indexOf("} else {", added);
  assert(added !== -1 && added < listed && listed < otherwise, "path= is recorded only when added");
});
