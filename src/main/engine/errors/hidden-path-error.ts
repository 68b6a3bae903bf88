import { homeRelative, MAX_CHECKED_HIDDEN_FILES, type HiddenPath } from "../sandbox/hidden-path-set.ts";
import { CapabilityDeniedError } from "./capability-denied-error.ts";

const marker = Symbol.for("lathe.error.hidden-path");

/** The path as the model named it, and where it leads when that is elsewhere. */
function named(requested: string, real: string): string {
  return real === requested ? `"${requested}"` : `"${requested}" (which is ${real})`;
}

/** Why a path is refused, and what the user could change. */
function refusal(requested: string, hidden: HiddenPath, settingsFile: string, real: string): string {
  const entry = homeRelative(hidden.entry);
  if (hidden.hardLink === "unchecked") {
    const why = hidden.hiddenBy === "lathe-home" ? "Lathe's own data" : 'in "sandbox.denyRead"';
    return `"${requested}" is a file with several names (hard links), and ${entry} (${why}, which no tool may read) holds more than ${MAX_CHECKED_HIDDEN_FILES} files: too many to make sure none of them is this file, so no tool may read or write it. Do not try to reach it another way. If the user wants Lathe to read it, they can replace it with a plain copy (a file with one name), or set "sandbox.denyRead" in ${settingsFile} to smaller folders.`;
  }
  // A hard link is the hidden file itself, under another name.
  const shown =
    hidden.hardLink === "hidden-name" ? `"${requested}" (a hard link to ${real})` : named(requested, real);
  return hidden.hiddenBy === "lathe-home"
    ? `${shown} is Lathe's own data (in ${entry}: the conversations, settings and file copies of every folder); no tool or command may read or write it.`
    : `${shown} is hidden from Lathe's tools and commands: ${entry} is in "sandbox.denyRead" (by default, the places credentials live), so no tool may read or write it. Do not try to reach it another way. If the user wants Lathe to read it, they must set "sandbox.denyRead" in ${settingsFile} to a list without ${entry}.`;
}

/**
 * A tool named a path that `sandbox.denyRead` or `$LATHE_HOME`'s privacy hides (see
 * HiddenPathSet): refused in every approval mode, since it is the containment the person was
 * promised, not an approval. The message says which entry hides it and what the user could change.
 */
export class HiddenPathError extends CapabilityDeniedError {
  readonly [marker] = true;
  readonly hidden: HiddenPath;

  /**
   * `requested`: the path as the tool was given it; `real`: where it leads, as the tool shows
   * paths (relative to the workspace root); `settingsFile`: where the user changes denyRead.
   */
  constructor(requested: string, hidden: HiddenPath, settingsFile: string, real = homeRelative(hidden.path)) {
    super(requested, refusal(requested, hidden, settingsFile, real));
    this.hidden = hidden;
  }

  static override isInstance(value: unknown): value is HiddenPathError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
