import { chmod, mkdir, stat, unlink, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EditData } from "./edit.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import type { WriteData } from "./write.ts";

let ws: TestWorkspace;
beforeEach(async () => {
  ws = await openTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe("write", () => {
  it("creates a new file in nested folders without a read, and reports its size in bytes", async () => {
    const envelope = await ws.session.call("write", { path: "a/b/c/new.txt", content: "héllo\n" });
    expect(outputOf<WriteData>(envelope)).toEqual({ path: "a/b/c/new.txt", bytes: 7 });
    expect(await ws.text("a/b/c/new.txt")).toBe("héllo\n");
    expect(await ws.tree()).toEqual(["a", "a/b", "a/b/c", "a/b/c/new.txt"]);
  });

  it("writes content exactly as given, CRLF and empty content included", async () => {
    outputOf(await ws.session.call("write", { path: "crlf.txt", content: "x\r\ny\r\n" }));
    outputOf(await ws.session.call("write", { path: "empty.txt", content: "" }));
    expect((await ws.bytes("crlf.txt")).toString("latin1")).toBe("x\r\ny\r\n");
    expect((await ws.bytes("empty.txt")).length).toBe(0);
  });

  it("refuses to overwrite a file this session never read, and leaves it alone", async () => {
    await ws.put("keep.txt", "original\n");
    const message = errorOf(await ws.session.call("write", { path: "keep.txt", content: "clobbered\n" }));
    expect(message).toContain("has not been read in this session");
    expect(message).toContain("Call read on keep.txt first");
    expect(await ws.text("keep.txt")).toBe("original\n");
  });

  it("overwrites a file after reading it, keeping its mode, and leaves no temp file behind", async () => {
    await ws.put("run.sh", "echo old\n");
    await chmod(ws.abs("run.sh"), 0o751);
    outputOf(await ws.session.call("read", { path: "run.sh" }));
    const data = outputOf<WriteData>(
      await ws.session.call("write", { path: "run.sh", content: "echo new\n" }),
    );
    expect(data).toEqual({ path: "run.sh", bytes: 9 });
    expect(await ws.text("run.sh")).toBe("echo new\n");
    expect((await stat(ws.abs("run.sh"))).mode & 0o777).toBe(0o751);
    expect(await ws.tree()).toEqual(["run.sh"]);
  });

  it("refuses a stale write when the file changed behind the session's back", async () => {
    await ws.put("shared.txt", "v1\n");
    outputOf(await ws.session.call("read", { path: "shared.txt" }));
    await writeFile(ws.abs("shared.txt"), "v2 from someone else\n");
    const message = errorOf(await ws.session.call("write", { path: "shared.txt", content: "v3\n" }));
    expect(message).toContain("has changed on disk since this session last read it");
    expect(message).toContain("read on shared.txt again");
    expect(await ws.text("shared.txt")).toBe("v2 from someone else\n");
    // Reading again makes the write possible.
    outputOf(await ws.session.call("read", { path: "shared.txt" }));
    outputOf(await ws.session.call("write", { path: "shared.txt", content: "v3\n" }));
    expect(await ws.text("shared.txt")).toBe("v3\n");
  });

  it("detects a same-size change behind the session's back", async () => {
    await ws.put("same.txt", "aaaa\n");
    outputOf(await ws.session.call("read", { path: "same.txt" }));
    await writeFile(ws.abs("same.txt"), "bbbb\n");
    expect(errorOf(await ws.session.call("write", { path: "same.txt", content: "c\n" }))).toMatch(
      /changed on disk/,
    );
    expect(await ws.text("same.txt")).toBe("bbbb\n");
  });

  it("lets a following write and edit proceed without a re-read", async () => {
    outputOf(await ws.session.call("write", { path: "f.txt", content: "one\n" }));
    outputOf(await ws.session.call("write", { path: "f.txt", content: "two\n" }));
    const edit = outputOf<EditData>(
      await ws.session.call("edit", { path: "f.txt", old_string: "two", new_string: "three" }),
    );
    expect(edit.replacements).toBe(1);
    expect(await ws.text("f.txt")).toBe("three\n");
  });

  it("does not let one session's read authorise another session's write", async () => {
    await ws.put("f.txt", "x\n");
    outputOf(await ws.session.call("read", { path: "f.txt" }));
    const other = await ws.engine.openSession({ mode: "yolo" });
    expect(errorOf(await other.call("write", { path: "f.txt", content: "y\n" }))).toMatch(
      /has not been read/,
    );
    await other.close();
    expect(await ws.text("f.txt")).toBe("x\n");
  });

  it("creates the file again when it was deleted after the read", async () => {
    await ws.put("gone.txt", "x\n");
    outputOf(await ws.session.call("read", { path: "gone.txt" }));
    await unlink(ws.abs("gone.txt"));
    outputOf(await ws.session.call("write", { path: "gone.txt", content: "back\n" }));
    expect(await ws.text("gone.txt")).toBe("back\n");
  });

  it("refuses a directory as the target, and a path through an existing file", async () => {
    await mkdir(ws.abs("dir"));
    await ws.put("file.txt", "x\n");
    expect(errorOf(await ws.session.call("write", { path: "dir", content: "x" }))).toMatch(/is a directory/);
    expect(errorOf(await ws.session.call("write", { path: "file.txt/child.txt", content: "x" }))).toMatch(
      /existing file, not a folder/,
    );
    expect(await ws.tree()).toEqual(["dir", "file.txt"]);
    expect(await ws.text("file.txt")).toBe("x\n");
  });

  it("keeps the encoding of an existing UTF-16LE file", async () => {
    await ws.put("u16.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("old\n", "utf16le")]));
    outputOf(await ws.session.call("read", { path: "u16.txt" }));
    const data = outputOf<WriteData>(await ws.session.call("write", { path: "u16.txt", content: "nëw\n" }));
    const expected = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("nëw\n", "utf16le")]);
    expect(await ws.bytes("u16.txt")).toEqual(expected);
    expect(data.bytes).toBe(expected.length);
  });

  it.each([
    ["UTF-16LE", (text: string) => Buffer.from(text, "utf16le")],
    ["UTF-16BE", (text: string) => Buffer.from(text, "utf16le").swap16()],
  ])("keeps the encoding of an existing %s file without a BOM, adding none", async (_name, encode) => {
    await ws.put("u16.txt", encode("old\r\n"));
    outputOf(await ws.session.call("read", { path: "u16.txt" }));
    const data = outputOf<WriteData>(await ws.session.call("write", { path: "u16.txt", content: "nëw\r\n" }));
    expect(await ws.bytes("u16.txt")).toEqual(encode("nëw\r\n"));
    expect(data.bytes).toBe(encode("nëw\r\n").length);
  });

  it("refuses characters a latin1 file cannot hold, leaving it untouched", async () => {
    const original = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    await ws.put("latin1.txt", original);
    outputOf(await ws.session.call("read", { path: "latin1.txt" }));
    const message = errorOf(await ws.session.call("write", { path: "latin1.txt", content: "price: 5 €\n" }));
    expect(message).toContain("latin1");
    expect(message).toContain("U+20AC");
    expect(await ws.bytes("latin1.txt")).toEqual(original);
    outputOf(await ws.session.call("write", { path: "latin1.txt", content: "naïve\n" }));
    expect(await ws.bytes("latin1.txt")).toEqual(Buffer.from("naïve\n", "latin1"));
  });

  it("refuses to replace a binary file", async () => {
    await ws.put("blob.bin", Buffer.from([1, 0, 2, 0]));
    expect(errorOf(await ws.session.call("write", { path: "blob.bin", content: "text" }))).toMatch(/binary/);
    expect(await ws.bytes("blob.bin")).toEqual(Buffer.from([1, 0, 2, 0]));
  });

  it("is a gated, mutating tool of kind edit that may write only the workspace", () => {
    const info = ws.engine.listTools().find((t) => t.id === "write");
    expect(info).toMatchObject({
      readOnly: false,
      gated: true,
      kind: "edit",
      requires: { fs: { write: ["{workspace}/**"] } },
    });
  });
});

describe("a path written as a folder's is not taken for a file's", () => {
  it.each(["newdir/", "newdir//", "a.txt/.", "sub/a.txt/", "sub/./"])(
    "write and edit refuse %j and create nothing",
    async (path) => {
      await ws.put("a.txt", "alpha\n");
      await ws.put("sub/a.txt", "alpha\n");
      outputOf(await ws.session.call("read", { path: "a.txt" }));
      outputOf(await ws.session.call("read", { path: "sub/a.txt" }));
      const written = errorOf(await ws.session.call("write", { path, content: "x\n" }));
      expect(written).toContain(`"${path}" ends with`);
      expect(written).toContain("names a folder");
      const edited = errorOf(await ws.session.call("edit", { path, old_string: "alpha", new_string: "x" }));
      expect(edited).toContain("names a folder");
      expect(await ws.tree()).toEqual(["a.txt", "sub", "sub/a.txt"]);
      expect(await ws.text("a.txt")).toBe("alpha\n");
      expect(await ws.text("sub/a.txt")).toBe("alpha\n");
    },
  );
});

describe("a file whose name is as long as a name may be", () => {
  it.each([
    ["240 ASCII bytes", `${"n".repeat(236)}.txt`],
    ["255 ASCII bytes", `${"n".repeat(251)}.txt`],
    ["255 bytes of two-byte letters", `${"é".repeat(125)}x.txt`],
  ])("(%s) is written and edited, and no temporary file is left", async (_what, name) => {
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    outputOf(await ws.session.call("write", { path: name, content: "one\n" }));
    outputOf(await ws.session.call("write", { path: name, content: "two\n" }));
    outputOf(await ws.session.call("edit", { path: name, old_string: "two", new_string: "three" }));
    expect(await ws.text(name)).toBe("three\n");
    expect(await ws.tree()).toEqual([name]);
  });
});
