import { sameState } from "./call-journal.ts";
import type { CheckpointEntry } from "./checkpoint-store.ts";

/**
 * A command's checkpoint is the difference between a scan of the workspace before it and one
 * after it, so it also holds what other sessions changed while it ran (another chat, or a
 * `lathe call` in a terminal). Their calls recorded those changes in their own checkpoints
 * (`others`, oldest first): a change of a path that ends where theirs end is theirs, not the
 * command's. When the command had not changed that path before they did, the entry goes; when it
 * had, the entry ends where theirs began, so a restore of the command finds the file changed
 * since and says so rather than undo their change.
 */
export function withoutOthersChanges(
  entries: readonly CheckpointEntry[],
  others: readonly CheckpointEntry[],
): CheckpointEntry[] {
  const byPath = new Map<string, CheckpointEntry[]>();
  for (const other of others) {
    if (other.type !== "file") continue;
    const list = byPath.get(other.path) ?? [];
    list.push(other);
    byPath.set(other.path, list);
  }
  const out: CheckpointEntry[] = [];
  for (const entry of entries) {
    const theirs = entry.type === "file" ? byPath.get(entry.path) : undefined;
    const began = theirs && beginningOfLastRun(theirs, entry);
    if (began === undefined) {
      out.push(entry);
      continue;
    }
    if (sameState(entry.before, began)) continue;
    out.push({ ...entry, after: began });
  }
  return out;
}

/**
 * Where the others' changes that left the path as the command's scan found it afterwards began:
 * the newest of their changes ending in that state, followed back through the changes before it
 * that each ended where the next began. Undefined when none of theirs ends there (the last
 * change was not theirs).
 */
function beginningOfLastRun(
  theirs: readonly CheckpointEntry[],
  entry: CheckpointEntry,
): CheckpointEntry["before"] | undefined {
  let i = theirs.length - 1;
  while (i >= 0 && !sameState((theirs[i] as CheckpointEntry).after, entry.after)) i--;
  if (i < 0) return undefined;
  let began = (theirs[i] as CheckpointEntry).before;
  for (let j = i - 1; j >= 0; j--) {
    const earlier = theirs[j] as CheckpointEntry;
    if (!sameState(earlier.after, began)) break;
    began = earlier.before;
  }
  return began;
}
