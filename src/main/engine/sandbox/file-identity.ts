import { lstatSync } from "node:fs";

/**
 * Which file a path names now, without following a link, or undefined when there is none: its
 * device and inode, and when it was made. The inode number alone is not enough: a file system
 * hands a freed one out again, and git rewriting its config twice in a row gives the second
 * file the first one's number back (seen on ext4). Its birth time (or, where the file system
 * keeps none, its change time) tells them apart.
 */
export function fileIdentity(file: string): string | undefined {
  try {
    const stat = lstatSync(file, { bigint: true });
    return `${stat.dev}:${stat.ino}:${stat.birthtimeNs || stat.ctimeNs}`;
  } catch {
    return undefined;
  }
}
