/**
 * What a person is told when a session id does not lead to a session of the folder they work
 * in: the same words from every command that takes an id (close, delete, rename, checkpoints),
 * each saying how to find the right id.
 */

/**
 * No session of `root` has the id. `similar`: this folder's ids that start with it (ids are
 * matched whole, so a prefix names none of them, however many there are).
 */
export function unknownSessionMessage(id: string, root: string, similar: readonly string[]): string {
  const hint =
    similar.length === 0
      ? ""
      : ` Ids are matched whole; ${similar.length === 1 ? "this one starts" : "these start"} with "${id}": ${similar.join(", ")}.`;
  return `There is no session "${id}" in ${root}.${hint} List this folder's sessions with: lathe session list --root ${root}`;
}

/** The session is `owner`'s, not `root`'s: where to run `then` ("close it") instead. */
export function otherFolderMessage(id: string, owner: string, root: string, then: string): string {
  return `Session ${id} belongs to the folder ${owner}, not ${root}. Pass --root ${owner} to ${then}.`;
}
