import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../store/database.ts";
import { BlobStore, sha256Of } from "./blob-store.ts";
import { ReportedChanges } from "./call-journal.ts";

// What a write or edit reports becomes its checkpoint: every change a restore would undo, its
// permission bits included, and nothing for a file the call left exactly as it was.

let dir: string;
let db: Db;
let blobs: BlobStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-journal-"));
  db = openDatabase(path.join(dir, "lathe.db"));
  blobs = new BlobStore(path.join(dir, "blobs"), db);
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const SCRIPT = new TextEncoder().encode("#!/bin/sh\necho hi\n");
const OTHER = new TextEncoder().encode("#!/bin/sh\necho bye\n");

describe("the changes a write or edit reports", () => {
  it.each<[string, number, Uint8Array, number | undefined, number]>([
    ["the same content and mode: nothing changed", 0o644, SCRIPT, 0o644, 0],
    ["the same content, another mode: a change to undo", 0o644, SCRIPT, 0o755, 1],
    ["the same content, the setuid bit added: a change", 0o755, SCRIPT, 0o4755, 1],
    ["new content, the same mode: a change", 0o644, OTHER, 0o644, 1],
    ["the same content, mode not known after: nothing to tell apart", 0o644, SCRIPT, undefined, 0],
  ])("%s", async (_, before, after, afterMode, entries) => {
    const root = path.join(dir, "ws");
    const journal = new ReportedChanges(root, blobs);
    const file = path.join(root, "run.sh");
    await journal.keep(file, { bytes: SCRIPT, mode: before });
    journal.changed(file, sha256Of(after), afterMode);
    const recorded = await journal.entries();
    expect(recorded).toHaveLength(entries);
    if (entries === 1) {
      expect(recorded[0]).toMatchObject({
        path: "run.sh",
        type: "file",
        before: { exists: true, hash: sha256Of(SCRIPT), mode: before },
        after: { exists: true, hash: sha256Of(after), mode: afterMode },
      });
    }
  });
});
