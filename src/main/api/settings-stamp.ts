import { createHash } from "node:crypto";
import path from "node:path";
import { readSettingsBytes, TrustStore } from "../engine/index.ts";

/** A settings file's content as a digest, or why there is none (read as the engine reads it). */
function fileState(file: string): string {
  const read = readSettingsBytes(file);
  if (read.state === "read") return createHash("sha256").update(read.bytes).digest("hex");
  return read.state === "missing" ? "(missing)" : `(${read.problem})`;
}

/**
 * What an engine for `root` reads from settings and trust when it is created, as one comparable
 * string: the user's and the project's settings files as written, and whether the folder is
 * trusted (trust given or revoked by `lathe trust`, or its grants changed since). A host compares
 * it with the one taken before its engine was created to notice a hand edit of either file, or a
 * trust changed from the command line, while the app runs.
 */
export function settingsStamp(root: string, latheHome: string): string {
  let trust: string;
  try {
    trust = new TrustStore(latheHome).state(root);
  } catch (err) {
    trust = `(${(err as Error).message})`;
  }
  return JSON.stringify([
    fileState(path.join(latheHome, "settings.json")),
    fileState(path.join(root, ".lathe", "settings.json")),
    trust,
  ]);
}
