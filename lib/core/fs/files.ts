/** Small reads shared by the project-knowledge commands. */
import { isNotFound } from "../errors.ts";

/** The file's text, or undefined when it does not exist. */
export async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** The file's permission bits, so a rewrite keeps them; undefined when missing. */
export async function fileMode(path: string): Promise<number | undefined> {
  try {
    return (await Deno.stat(path)).mode ?? undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
