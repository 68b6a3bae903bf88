import { realpath, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ApiError } from "./api-error.ts";

/**
 * The folder a person typed, checked before the host moves to it: `~` is their home folder; the
 * path must be absolute, exist and be a folder (symlinks resolved). Every refusal is an ApiError
 * saying what was wrong and what to type instead.
 */
export async function resolveProjectPath(input: string, home = os.homedir()): Promise<string> {
  const typed = input.trim();
  if (typed === "") throw new ApiError("Enter the path of a folder to open.");
  if (typed.includes("\0")) throw new ApiError("The path contains a NUL character: type the folder's path.");
  const expanded = typed === "~" ? home : typed.startsWith("~/") ? path.join(home, typed.slice(2)) : typed;
  if (!path.isAbsolute(expanded)) {
    throw new ApiError(
      `"${typed}" is not an absolute path: type the whole path of the folder, starting with / (or ~/ for your home folder).`,
    );
  }
  const requested = path.resolve(expanded);
  let real: string;
  try {
    real = await realpath(requested);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ApiError(`There is no folder ${requested}. Check the path, or create the folder first.`);
    }
    if (code === "EACCES" || code === "EPERM") {
      throw new ApiError(`Lathe may not open ${requested}: permission denied. Choose a folder you can read.`);
    }
    throw new ApiError(`Cannot open ${requested}: ${(error as Error).message}`);
  }
  const info = await stat(real);
  if (!info.isDirectory()) {
    throw new ApiError(
      `${requested} is a file, not a folder. Open the folder that holds it: ${path.dirname(requested)}`,
    );
  }
  return real;
}
