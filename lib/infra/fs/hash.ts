/**
 * File hashes without holding the file in memory: the bytes are streamed
 * through SHA-256 a chunk at a time, so a 2 GB artefact costs one buffer, not
 * 2 GB. Like every state read, only a regular file is opened (checked before
 * the open, so a FIFO never blocks) and the state tree is confined first.
 */
import { isNotFound } from "../errors.ts";
import { confineState, kindOf } from "./confine.ts";
import { FileRefused } from "./files.ts";

const CHUNK = 1024 * 1024;

/** Size and SHA-256 (hex) of a regular file; undefined when it does not exist. Throws FileRefused. */
export async function hashFile(
  path: string,
): Promise<{ size: number; sha256: string } | undefined> {
  await confineState(path);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  if (!info.isFile) {
    throw new FileRefused(path, "special", `it is ${kindOf(info)}, not a regular file`);
  }
  // Loaded here only: node:crypto is the streaming SHA-256 the runtime ships.
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  const file = await Deno.open(path, { read: true });
  let size = 0;
  try {
    if (!(await file.stat()).isFile) {
      throw new FileRefused(path, "special", "it stopped being a regular file");
    }
    const buffer = new Uint8Array(CHUNK);
    while (true) {
      const n = await file.read(buffer);
      if (n === null) break;
      size += n;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    file.close();
  }
  return { size, sha256: hash.digest("hex") };
}
