import { statSync } from "node:fs";
import { appendFile, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../store/database.ts";
import { BlobStore, sha256Of } from "./blob-store.ts";
import { CheckpointStore } from "./checkpoint-store.ts";

// The content-addressed store on a real folder and database: one file per distinct content,
// damaged blobs refused, and garbage collection that spares what checkpoints and indexes use.

let dir: string;
let db: Db;
let blobs: BlobStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-blobs-"));
  db = openDatabase(path.join(dir, "lathe.db"));
  db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('s', '/w', 0)").run();
  blobs = new BlobStore(path.join(dir, "blobs"), db);
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

async function files(): Promise<string[]> {
  return (await readdir(path.join(dir, "blobs"), { recursive: true, withFileTypes: true }))
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}

describe("BlobStore", () => {
  it("stores the same content once, however often it is put, and reads it back", async () => {
    const content = Buffer.from("x".repeat(10_000));
    const hashes = new Set<string>();
    for (let i = 0; i < 5; i++) hashes.add(await blobs.put(content));
    hashes.add(await blobs.put(Buffer.from(content), sha256Of(content)));
    expect([...hashes]).toEqual([sha256Of(content)]);
    expect(await files()).toHaveLength(1);
    expect(blobs.storedBytes()).toBe(10_000);
    expect((await blobs.read(sha256Of(content)))?.equals(content)).toBe(true);
  });

  it.each([
    ["removed", (file: string) => rm(file)],
    ["cut short", (file: string) => writeFile(file, "par")],
  ])(
    "a blob file %s since is written again when the same content is kept again, by put and by keepFile",
    async (_what, spoil) => {
      const content = Buffer.from("the person's file\n");
      const hash = await blobs.put(content);
      const blobFile = (await files())[0] as string;
      await spoil(blobFile);
      expect(await blobs.put(content)).toBe(hash);
      expect((await blobs.read(hash))?.equals(content)).toBe(true);

      await spoil(blobFile);
      const source = path.join(dir, "source.txt");
      await writeFile(source, content);
      const info = statSync(source);
      const read = { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, nlink: info.nlink };
      expect(await blobs.keepFile(source, content, hash, read)).toBe(hash);
      expect((await blobs.read(hash))?.equals(content)).toBe(true);
    },
  );

  it("a blob folder removed whole since (rm -r blobs) is made again by the next put, which succeeds", async () => {
    const content = Buffer.from("kept twice\n");
    const hash = await blobs.put(content);
    await rm(path.join(dir, "blobs"), { recursive: true });
    expect(await blobs.put(content)).toBe(hash);
    expect(await blobs.put(Buffer.from("new content\n"))).toBe(sha256Of(Buffer.from("new content\n")));
    expect((await blobs.read(hash))?.equals(content)).toBe(true);
  });

  it("reports a blob whose bytes no longer match its name as missing rather than handing them out", async () => {
    const hash = await blobs.put(Buffer.from("good\n"));
    await writeFile((await files())[0] as string, "tampered\n");
    expect(await blobs.read(hash)).toBeUndefined();
    expect(await blobs.read("0".repeat(64))).toBeUndefined();
  });

  it("garbage collection removes only unreferenced blobs past the grace period", async () => {
    const referenced = await blobs.put(Buffer.from("kept by a checkpoint"));
    const indexed = await blobs.put(Buffer.from("kept by an index"));
    const orphan = await blobs.put(Buffer.from("nobody needs me"));
    new CheckpointStore(db).record({
      sessionId: "s",
      root: "/w",
      kind: "tool",
      tool: "write",
      callId: null,
      toolCallId: null,
      undoes: [],
      entries: [
        { path: "a", type: "file", before: { exists: true, hash: referenced }, after: { exists: false } },
      ],
    });
    db.prepare(
      "INSERT INTO checkpoint_index (session_id, path, type, size, mtime_ms, ctime_ms, ino, mode, hash) VALUES ('s', 'b', 'file', 1, 0, 0, 1, 420, ?)",
    ).run(indexed);
    expect(await blobs.collectGarbage(60_000)).toBe(0); // everything was used just now
    expect(await blobs.collectGarbage(0)).toBe(1);
    expect(blobs.has(orphan)).toBe(false);
    expect(await blobs.read(orphan)).toBeUndefined();
    expect(await files()).toHaveLength(2);

    db.prepare("DELETE FROM sessions WHERE id = 's'").run();
    expect(await blobs.collectGarbage(0)).toBe(2);
    expect(await files()).toEqual([]);
  });
});

describe("BlobStore.keepFile", () => {
  async function fileToKeep(content: string): Promise<{ file: string; bytes: Buffer; hash: string }> {
    const file = path.join(dir, `work-${Math.random().toString(36).slice(2)}.txt`);
    await writeFile(file, content);
    const bytes = Buffer.from(content);
    return { file, bytes, hash: sha256Of(bytes) };
  }

  it("keeps a file with one name by a hard link: no data is copied", async () => {
    const { file, bytes, hash } = await fileToKeep("linked\n");
    await blobs.keepFile(file, bytes, hash, statSync(file));
    expect(statSync((await files())[0] as string).ino).toBe(statSync(file).ino);
  });

  it("copies when the path no longer names the file that was read", async () => {
    const { file, bytes, hash } = await fileToKeep("read this\n");
    const read = statSync(file);
    await writeFile(`${file}.swap`, "something else\n");
    await rename(`${file}.swap`, file);
    await blobs.keepFile(file, bytes, hash, read);
    const [blob] = await files();
    expect(statSync(blob as string).ino).not.toBe(statSync(file).ino);
    expect((await blobs.read(hash))?.toString()).toBe("read this\n");
  });

  it("detach turns a link to a file that was not replaced into a copy of its own", async () => {
    const { file, bytes, hash } = await fileToKeep("kept\n");
    await blobs.keepFile(file, bytes, hash, statSync(file));
    await blobs.detach(hash);
    await appendFile(file, "changed in place afterwards\n");
    expect((await blobs.read(hash))?.toString()).toBe("kept\n");
  });
});
