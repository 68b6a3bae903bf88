import path from "node:path";
import { symlinksOnPath } from "../capability/canonical-path.ts";

/**
 * The other names under which a call reaches the file at `canonical` when it asks for `written`
 * (absolute, as joined to its folder, not yet resolved): the path as written (`./d/../.env` is
 * `.env`) and every symlink on the way, each where it lies. A rule that denies reading `.env`
 * speaks for the file a symlink `.env` leads to as well: the person named what they wanted kept
 * from the model, not where it is stored. Empty when the path names its file directly.
 */
export async function namesOnTheWay(written: string, canonical: string): Promise<string[]> {
  const asWritten = path.posix.normalize(written).replace(/(?<=.)\/+$/, "");
  // Resolving left the path as written: no symlink on the way (the common case: no disk look-up).
  if (asWritten === canonical) return [];
  let links: string[];
  try {
    links = await symlinksOnPath(written);
  } catch {
    // A loop of links: the path was refused while being resolved, or names nothing to read.
    links = [];
  }
  const names = new Set([asWritten, ...links]);
  names.delete(canonical);
  return [...names];
}
