import { lstatSync, readlinkSync } from "node:fs";

/**
 * Where `file` points when it is a symbolic link to nothing (a dotfiles folder not mounted, a
 * file moved): such a settings file is not "no settings", which would silently drop every rule
 * the person keeps there. Undefined when `file` is no link, or cannot be looked at.
 */
export function danglingLinkTarget(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** The sentence naming a dangling settings link and the fix. */
export function danglingLinkProblem(file: string, target: string): string {
  return `${file} is a symbolic link to ${target}, which does not exist: restore that file, or remove the link for no settings`;
}
