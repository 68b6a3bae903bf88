import { chmod, readFile, stat, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OUTPUT_LIMITS } from "../tools/truncation.ts";
import type { EditData } from "./edit.ts";
import { DIFF_MAX_CHANGED_LINES } from "./diff-limits.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";

let ws: TestWorkspace;
beforeEach(async () => {
  ws = await openTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

/** Put a file and read it through the session, as the read-first rule requires. */
async function seen(relative: string, content: string | Uint8Array): Promise<void> {
  await ws.put(relative, content);
  outputOf(await ws.session.call("read", { path: relative }));
}

async function edit(args: Record<string, unknown>): Promise<EditData> {
  return outputOf<EditData>(await ws.session.call("edit", args));
}

describe("edit", () => {
  it("replaces one exact occurrence and returns a unified diff", async () => {
    await seen("src/app.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const data = await edit({ path: "src/app.ts", old_string: "const b = 2;", new_string: "const b = 20;" });
    expect(data.path).toBe("src/app.ts");
    expect(data.replacements).toBe(1);
    expect(await ws.text("src/app.ts")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
    expect(data.diff).toContain("--- src/app.ts\n+++ src/app.ts\n");
    expect(data.diff).toContain("@@ -1,3 +1,3 @@");
    expect(data.diff).toContain("\n-const b = 2;\n+const b = 20;\n");
    expect(await ws.tree()).toEqual(["src", "src/app.ts"]);
  });

  it("replaces every occurrence with replace_all and counts them", async () => {
    await seen("f.txt", "foo bar foo\nfoo\n");
    const data = await edit({ path: "f.txt", old_string: "foo", new_string: "baz", replace_all: true });
    expect(data.replacements).toBe(3);
    expect(await ws.text("f.txt")).toBe("baz bar baz\nbaz\n");
  });

  it("inserts replacement text literally, $ patterns included", async () => {
    await seen("f.txt", "price\n");
    await edit({ path: "f.txt", old_string: "price", new_string: "$& $1 $$ $`" });
    expect(await ws.text("f.txt")).toBe("$& $1 $$ $`\n");
  });

  it("says when old_string is not found, suggests re-reading, and changes nothing", async () => {
    await seen("f.txt", "  indented\n");
    const message = errorOf(
      await ws.session.call("edit", { path: "f.txt", old_string: "\tindented", new_string: "x" }),
    );
    expect(message).toContain("not found in f.txt");
    expect(message).toMatch(
      /starts at line 1 \(line 1 indents with spaces, not tabs\): copy old_string exactly/,
    );
    expect(await ws.text("f.txt")).toBe("  indented\n");
  });

  it("says how many matches there are without replace_all, and changes nothing", async () => {
    await seen("f.txt", "x = 1\nx = 1\nx = 1\n");
    const message = errorOf(
      await ws.session.call("edit", { path: "f.txt", old_string: "x = 1", new_string: "x = 2" }),
    );
    expect(message).toContain("occurs 3 times");
    expect(message).toContain("replace_all");
    expect(message).toMatch(/surrounding lines/);
    expect(await ws.text("f.txt")).toBe("x = 1\nx = 1\nx = 1\n");
  });

  it("refuses an empty old_string and one equal to new_string", async () => {
    await seen("f.txt", "same\n");
    expect(
      errorOf(await ws.session.call("edit", { path: "f.txt", old_string: "", new_string: "x" })),
    ).toMatch(/old_string/);
    expect(
      errorOf(await ws.session.call("edit", { path: "f.txt", old_string: "same", new_string: "same" })),
    ).toMatch(/identical/);
    expect(await ws.text("f.txt")).toBe("same\n");
  });

  it("suggests write for a missing file, and creates nothing", async () => {
    const message = errorOf(
      await ws.session.call("edit", { path: "new.txt", old_string: "a", new_string: "b" }),
    );
    expect(message).toContain("File not found: new.txt");
    expect(message).toContain("use write");
    expect(await ws.tree()).toEqual([]);
  });

  it("requires a read first, and a fresh one after the file changed", async () => {
    await ws.put("f.txt", "alpha\n");
    expect(
      errorOf(await ws.session.call("edit", { path: "f.txt", old_string: "alpha", new_string: "beta" })),
    ).toMatch(/has not been read in this session.*Call read on f\.txt first/);
    outputOf(await ws.session.call("read", { path: "f.txt" }));
    await writeFile(ws.abs("f.txt"), "alpha changed elsewhere\n");
    expect(
      errorOf(await ws.session.call("edit", { path: "f.txt", old_string: "alpha", new_string: "beta" })),
    ).toMatch(/changed on disk since this session last read it/);
    expect(await ws.text("f.txt")).toBe("alpha changed elsewhere\n");
  });

  it("allows consecutive edits without re-reading, and keeps the mode", async () => {
    await seen("tool.sh", "echo one\necho two\n");
    await chmod(ws.abs("tool.sh"), 0o700);
    await edit({ path: "tool.sh", old_string: "one", new_string: "1" });
    await edit({ path: "tool.sh", old_string: "two", new_string: "2" });
    expect(await ws.text("tool.sh")).toBe("echo 1\necho 2\n");
    expect((await stat(ws.abs("tool.sh"))).mode & 0o777).toBe(0o700);
    expect(await ws.tree()).toEqual(["tool.sh"]);
  });

  it("keeps CRLF line endings when edited with LF strings", async () => {
    await seen("win.txt", "line one\r\nline two\r\nline three\r\n");
    const data = await edit({
      path: "win.txt",
      old_string: "line one\nline two\n",
      new_string: "first\nsecond\nextra\n",
    });
    expect((await ws.bytes("win.txt")).toString("latin1")).toBe("first\r\nsecond\r\nextra\r\nline three\r\n");
    expect(data.diff).not.toContain("\r");
    // CRLF in the strings works too.
    await edit({ path: "win.txt", old_string: "second\r\nextra", new_string: "2nd" });
    expect((await ws.bytes("win.txt")).toString("latin1")).toBe("first\r\n2nd\r\nline three\r\n");
  });

  it.each([
    ["an LF string", "b\nc", "B\nb2\nC"],
    ["a CR string, as read shows the file", "b\rc", "B\rb2\rC"],
    ["a CRLF string", "b\r\nc", "B\r\nb2\r\nC"],
  ])(
    "keeps lone-CR line endings (classic Mac, Excel for Mac CSV) when edited with %s",
    async (_n, from, to) => {
      await seen("mac.csv", "a\rb\rc\rd\r");
      const data = await edit({ path: "mac.csv", old_string: from, new_string: to });
      expect(await ws.text("mac.csv")).toBe("a\rB\rb2\rC\rd\r");
      // The diff shows the lines that changed, not the whole file as one line.
      expect(data.diff).toContain("\n-b\n-c\n+B\n+b2\n+C\n");
    },
  );

  it("matches a file with mixed line endings exactly and leaves the other lines' endings alone", async () => {
    await seen("mixed.txt", "a\r\nb\nc\r\n");
    await edit({ path: "mixed.txt", old_string: "b\n", new_string: "B\n" });
    expect((await ws.bytes("mixed.txt")).toString("latin1")).toBe("a\r\nB\nc\r\n");
    expect(
      errorOf(await ws.session.call("edit", { path: "mixed.txt", old_string: "a\nB", new_string: "x" })),
    ).toMatch(/mixes LF and CRLF/);
  });

  it("keeps a UTF-8 BOM", async () => {
    await seen("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("grüße\n")]));
    await edit({ path: "bom.txt", old_string: "grüße", new_string: "hallo" });
    expect(await ws.bytes("bom.txt")).toEqual(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("hallo\n")]),
    );
  });

  it("keeps UTF-16LE with its BOM and CRLF endings", async () => {
    const utf16 = (s: string): Buffer =>
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]);
    await seen("u16.txt", utf16("key=välue\r\nother=1\r\n"));
    await edit({ path: "u16.txt", old_string: "key=välue\nother", new_string: "key=wert\nanother" });
    expect(await ws.bytes("u16.txt")).toEqual(utf16("key=wert\r\nanother=1\r\n"));
  });

  it.each([
    ["UTF-16LE", (text: string) => Buffer.from(text, "utf16le")],
    ["UTF-16BE", (text: string) => Buffer.from(text, "utf16le").swap16()],
  ])("keeps %s without a BOM as it was: no BOM added, its CRLF endings kept", async (_name, encode) => {
    await seen("export.csv", encode("Name,Wert\r\nkey,välue\r\n"));
    await edit({ path: "export.csv", old_string: "key,välue\n", new_string: "key,wert ✓\nnew,1\n" });
    expect(await ws.bytes("export.csv")).toEqual(encode("Name,Wert\r\nkey,wert ✓\r\nnew,1\r\n"));
  });

  it("round-trips latin1 bytes that are not valid UTF-8 byte-exactly", async () => {
    // "café = 5\n" + "naïve\n" in latin1, plus a 0xff byte.
    const original = Buffer.concat([Buffer.from("café = 5\nnaïve \xff\n", "latin1")]);
    await seen("legacy.txt", original);
    await edit({ path: "legacy.txt", old_string: "= 5", new_string: "= 6" });
    expect(await ws.bytes("legacy.txt")).toEqual(Buffer.from("café = 6\nnaïve \xff\n", "latin1"));
    const message = errorOf(
      await ws.session.call("edit", { path: "legacy.txt", old_string: "6", new_string: "€" }),
    );
    expect(message).toContain("latin1");
    expect(await ws.bytes("legacy.txt")).toEqual(Buffer.from("café = 6\nnaïve \xff\n", "latin1"));
  });

  it("edits a UTF-8 file holding a stray byte as UTF-8, keeping the stray byte as it was", async () => {
    // A latin1 "©" (0xA9) pasted into an otherwise UTF-8 file.
    const utf8 = (s: string): Buffer => Buffer.from(s, "utf8");
    const original = Buffer.concat([
      utf8("// café crème "),
      Buffer.from([0xa9]),
      utf8(" ACME\nconst price = 5;\n"),
    ]);
    await ws.put("price.ts", original);
    const read = outputOf<{ content: string }>(await ws.session.call("read", { path: "price.ts" }));
    expect(read.content).toBe("// café crème \uefa9 ACME\nconst price = 5;\n");
    await edit({ path: "price.ts", old_string: "price = 5;", new_string: "price = 5; // 5 € → ✓" });
    expect(await ws.bytes("price.ts")).toEqual(
      Buffer.concat([
        utf8("// café crème "),
        Buffer.from([0xa9]),
        utf8(" ACME\nconst price = 5; // 5 € → ✓\n"),
      ]),
    );
    // The stray byte can be named in old_string as read showed it.
    await edit({ path: "price.ts", old_string: "\uefa9 ACME", new_string: "© ACME" });
    expect(await ws.text("price.ts")).toBe("// café crème © ACME\nconst price = 5; // 5 € → ✓\n");
  });

  it("makes the edit but leaves out the diff, saying why, when too many lines changed", async () => {
    const lines = DIFF_MAX_CHANGED_LINES + 1;
    const text = Array.from({ length: lines }, (_, i) => `call(${i});\n`).join("");
    await seen("many.ts", text);
    const envelope = await ws.session.call("edit", {
      path: "many.ts",
      old_string: "call(",
      new_string: "invoke(",
      replace_all: true,
    });
    const data = outputOf<EditData>(envelope);
    expect(data.replacements).toBe(lines);
    expect(data.diff).toBe("");
    expect(data.diff_omitted).toBe(
      `The diff was left out: this edit changed ${lines} lines, more than the ${DIFF_MAX_CHANGED_LINES} a diff is made for. The file was written; read the parts you need to check.`,
    );
    expect(await ws.text("many.ts")).toBe(text.replaceAll("call(", "invoke("));
  });

  it("counts a line with several replacements once toward the diff's limit", async () => {
    const many = DIFF_MAX_CHANGED_LINES + 500;
    await seen("dense.txt", `first\n${"a ".repeat(many)}\nlast\n`);
    const data = await edit({ path: "dense.txt", old_string: "a ", new_string: "b ", replace_all: true });
    expect(data.replacements).toBe(many);
    expect(data.diff_omitted).toBeUndefined();
    expect(data.diff).toContain(`\n-${"a ".repeat(many)}\n+${"b ".repeat(many)}\n`);
  });

  it("cuts a long diff to its head and keeps the whole of it in a sidecar", async () => {
    const text = Array.from({ length: 300 }, (_, i) => `${"x".repeat(1_000)} ${i}\n`).join("");
    await seen("wide.txt", text);
    const envelope = await ws.session.call("edit", {
      path: "wide.txt",
      old_string: "x ",
      new_string: "y ",
      replace_all: true,
    });
    const data = outputOf<EditData>(envelope);
    expect(envelope.metadata.truncated).toBe(true);
    expect(Buffer.byteLength(data.diff)).toBeLessThanOrEqual(OUTPUT_LIMITS.readBytes);
    const full = await readFile(envelope.metadata.output_path as string, "utf8");
    expect(full.length).toBeGreaterThan(data.diff.length);
    expect(full.startsWith(data.diff)).toBe(true);
    expect(full).toContain(`+${"x".repeat(999)}y 299\n`);
  });

  it("refuses a binary file", async () => {
    await ws.put("blob.bin", Buffer.from([0x61, 0, 0x62]));
    expect(
      errorOf(await ws.session.call("edit", { path: "blob.bin", old_string: "a", new_string: "b" })),
    ).toMatch(/binary/);
    expect(await ws.bytes("blob.bin")).toEqual(Buffer.from([0x61, 0, 0x62]));
  });

  it("is a gated, mutating tool of kind edit that reads and writes the workspace", () => {
    const info = ws.engine.listTools().find((t) => t.id === "edit");
    expect(info).toMatchObject({
      readOnly: false,
      gated: true,
      kind: "edit",
      requires: { fs: { read: ["{workspace}/**"], write: ["{workspace}/**"] } },
    });
  });
});

describe("edit: old_string that nearly matches says how", () => {
  it.each([
    [
      "tabs in the file, spaces in old_string",
      "function f() {\n\treturn 1;\n}\n",
      "function f() {\n    return 1;\n}",
      /Text that differs only in spacing starts at line 1 \(line 2 indents with tabs, not spaces\): copy old_string exactly from there/,
    ],
    [
      "another indentation",
      "a:\n    b: 1\n",
      "a:\n  b: 1",
      /starts at line 1 \(line 2 is indented by 4 characters, not 2\)/,
    ],
    [
      "spaces inside a line",
      "let  x =  1;\n",
      "let x = 1;",
      /Text that differs only in spacing starts at line 1: copy/,
    ],
    [
      "e plus a combining accent in the file, é in old_string",
      "caf\u0065\u0301 au lait\n",
      "caf\u00e9",
      /It does occur once letters are compared in one Unicode form/,
    ],
    [
      "é in the file, e plus a combining accent in old_string",
      "caf\u00e9 au lait\n",
      "cafe\u0301",
      /It does occur once letters are compared in one Unicode form/,
    ],
    [
      "a CRLF file, old_string with a line's CR but not its LF",
      "alpha\r\nbeta\r\n",
      "alpha\r",
      /It does occur once carriage returns \(\\r\) are set aside: leave the \\r out of old_string/,
    ],
    [
      "a CRLF file, old_string with CR CR LF",
      "alpha\r\nbeta\r\n",
      "alpha\r\r\nbeta",
      /It does occur once carriage returns \(\\r\) are set aside: leave the \\r out of old_string/,
    ],
    [
      "an LF file, old_string with a CR at a line's end",
      "alpha\nbeta\n",
      "beta\r",
      /It does occur once carriage returns \(\\r\) are set aside: leave the \\r out of old_string/,
    ],
    [
      "a file of mixed endings, old_string with LF where the file has CRLF",
      "alpha\nbeta\r\ngamma\n",
      "beta\ngamma",
      /It does occur once carriage returns \(\\r\) are set aside: its line breaks are written otherwise in the file\. The file mixes LF and CRLF/,
    ],
  ])("%s", async (_what, content, oldString, hint) => {
    await ws.put("f.txt", content);
    await ws.session.call("read", { path: "f.txt" });
    const message = errorOf(
      await ws.session.call("edit", { path: "f.txt", old_string: oldString, new_string: "changed" }),
    );
    expect(message).toMatch(/^old_string was not found in f\.txt \(0 matches\)\./);
    expect(message).toMatch(hint);
    // One hint: the one that says what differs.
    expect(message.match(/It does occur|differs only in spacing/g)).toHaveLength(1);
    expect(await ws.text("f.txt")).toBe(content);
  });

  it("keeps the plain advice when nothing is close", async () => {
    await ws.put("f.txt", "alpha\nbeta\n");
    await ws.session.call("read", { path: "f.txt" });
    const message = errorOf(
      await ws.session.call("edit", { path: "f.txt", old_string: "gamma", new_string: "delta" }),
    );
    expect(message).toBe(
      "old_string was not found in f.txt (0 matches). Read the file again and copy the text exactly, including whitespace and indentation, without line numbers.",
    );
  });
});
