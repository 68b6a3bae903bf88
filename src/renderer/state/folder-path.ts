/**
 * A project folder's path in two parts, as the top bar and the recent projects show it: its name
 * (the last segment) and the folder it sits in. POSIX and Windows separators both count.
 */

/** The folder's last path segment, as a short name ("/" for the root itself). */
export function folderName(root: string): string {
  const trimmed = root.replace(/[\\/]+$/, "");
  return trimmed.split(/[\\/]/).pop() || trimmed || "/";
}

/**
 * The folder `root` sits in, without a trailing separator ("/" for a folder at the root, "C:\" on a
 * Windows drive's), or "" when `root` is a root itself.
 */
export function folderParent(root: string): string {
  const trimmed = root.replace(/[\\/]+$/, "");
  const cut = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  if (cut < 0) return "";
  const parent = trimmed.slice(0, cut);
  if (parent === "") return trimmed[cut]!;
  return /^[A-Za-z]:$/.test(parent) ? `${parent}${trimmed[cut]}` : parent;
}
