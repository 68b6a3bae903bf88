import { lstatSync } from "node:fs";

/** Whether anything (a file, a folder, a link, even a dangling one) is at `p` now. */
export function isPresent(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
