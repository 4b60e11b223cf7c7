/** The release targets and the names their archives and binaries carry. */

export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
  "aarch64-pc-windows-msvc",
] as const;

export type Target = (typeof TARGETS)[number];

export function isTarget(value: string): value is Target {
  return (TARGETS as readonly string[]).includes(value);
}

export function isWindows(target: Target): boolean {
  return target.endsWith("-windows-msvc");
}

/** `peaks` or `peaks.exe`: the executable's name inside the archive. */
export function binaryName(target: Target): string {
  return isWindows(target) ? "peaks.exe" : "peaks";
}

/** Windows gets a zip (Expand-Archive reads it); everything else a tar.gz. */
export function archiveName(version: string, target: Target): string {
  return `peaks-${version}-${target}.${isWindows(target) ? "zip" : "tar.gz"}`;
}

/** The target of the machine running this script, if peaks is released for it. */
export function hostTarget(): Target | undefined {
  const target = Deno.build.target;
  return isTarget(target) ? target : undefined;
}
