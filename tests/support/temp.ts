/** Temp directories that remove themselves (`await using dir = await tempDir()`). */
export interface TempDir extends AsyncDisposable {
  path: string;
}

export async function tempDir(prefix = "peaks-test-"): Promise<TempDir> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.chmod(path, 0o755).catch(() => {});
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

export async function writeText(path: string, text: string): Promise<void> {
  const dir = path.replace(/[\\/][^\\/]*$/, "");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(path, text);
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
