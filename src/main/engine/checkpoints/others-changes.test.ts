import { describe, expect, it } from "vitest";
import type { CheckpointEntry, PathState } from "./checkpoint-store.ts";
import { withoutOthersChanges } from "./others-changes.ts";

const file = (hash: string): PathState => ({ exists: true, hash, mode: 0o644 });
const gone: PathState = { exists: false };
const change = (path: string, before: PathState, after: PathState): CheckpointEntry => ({
  path,
  type: "file",
  before,
  after,
});

describe("withoutOthersChanges", () => {
  it.each([
    [
      "no other session changed anything",
      [change("a", file("1"), file("2"))],
      [],
      [change("a", file("1"), file("2"))],
    ],
    [
      "another session changed the path alone: its change goes",
      [change("a", file("1"), file("2"))],
      [change("a", file("1"), file("2"))],
      [],
    ],
    [
      "another session created the file: not the command's",
      [change("a", gone, file("2"))],
      [change("a", gone, file("2"))],
      [],
    ],
    [
      "two changes of other sessions in a row, together all of it: it goes",
      [change("a", file("1"), file("3"))],
      [change("a", file("1"), file("2")), change("a", file("2"), file("3"))],
      [],
    ],
    [
      "the command changed it first, then another session: the entry ends where theirs began",
      [change("a", file("1"), file("3"))],
      [change("a", file("2"), file("3"))],
      [change("a", file("1"), file("2"))],
    ],
    [
      "the command changed it after the other session: kept as the scan saw it",
      [change("a", file("1"), file("3"))],
      [change("a", file("1"), file("2"))],
      [change("a", file("1"), file("3"))],
    ],
    [
      "another session changed another path: the command's entry stays",
      [change("a", file("1"), file("2"))],
      [change("b", file("1"), file("2"))],
      [change("a", file("1"), file("2"))],
    ],
    [
      "the same content with another mode is not the same state",
      [change("a", file("1"), { exists: true, hash: "2", mode: 0o755 })],
      [change("a", file("1"), file("2"))],
      [change("a", file("1"), { exists: true, hash: "2", mode: 0o755 })],
    ],
    [
      "a folder entry is the command's own",
      [{ path: "d", type: "folder", before: gone, after: { exists: true, hash: null } }],
      [change("d", gone, file("2"))],
      [{ path: "d", type: "folder", before: gone, after: { exists: true, hash: null } }],
    ],
  ] as Array<[string, CheckpointEntry[], CheckpointEntry[], CheckpointEntry[]]>)(
    "%s",
    (_, entries, others, expected) => {
      expect(withoutOthersChanges(entries, others)).toEqual(expected);
    },
  );
});
