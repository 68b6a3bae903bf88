import { mkdir, readFile, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OUTPUT_LIMITS } from "../tools/truncation.ts";
import type { GlobData } from "./glob.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import { makeTooDeepFolder } from "../../../../test/support/too-deep-folder.ts";

let ws: TestWorkspace;
/** A folder beside the workspace root, outside it. */
let outside: string;

beforeEach(async () => {
  ws = await openTestWorkspace();
  outside = path.join(path.dirname(ws.root), "outside");
  await mkdir(outside);
});
afterEach(async () => {
  await ws.cleanup();
});

async function glob(args: unknown): Promise<string[]> {
  return outputOf<GlobData>(await ws.session.call("glob", args)).files;
}

/** Create files whose modification times increase in the order given (the last is newest). */
async function putInOrder(...relatives: string[]): Promise<void> {
  const t0 = Date.now() / 1000 - 10_000;
  for (const [i, relative] of relatives.entries()) {
    const file = await ws.put(relative, `${relative}\n`);
    await utimes(file, t0 + i * 10, t0 + i * 10);
  }
}

describe("glob", () => {
  it("is published as a read-only, ungated search tool that reads the workspace", () => {
    const info = ws.engine.listTools().find((t) => t.id === "glob");
    expect(info).toMatchObject({
      readOnly: true,
      gated: false,
      kind: "search",
      requires: { fs: { read: ["{workspace}/**"] } },
    });
    expect(info?.parameters).toMatchObject({ required: ["pattern"], additionalProperties: false });
  });

  it("matches patterns against paths relative to path, newest first, as root-relative POSIX paths", async () => {
    await putInOrder("src/a.ts", "README.md", "src/lib/b.ts", "src/lib/c.js", "test/d.ts", ".config/e.ts");
    expect(await glob({ pattern: "**/*.ts" })).toEqual([
      ".config/e.ts",
      "test/d.ts",
      "src/lib/b.ts",
      "src/a.ts",
    ]);
    expect(await glob({ pattern: "*.md" })).toEqual(["README.md"]);
    expect(await glob({ pattern: "src/*.ts" })).toEqual(["src/a.ts"]);
    expect(await glob({ pattern: "*.{js,md}", path: "src/lib" })).toEqual(["src/lib/c.js"]);
    expect(await glob({ pattern: "**/*", path: "src" })).toEqual([
      "src/lib/c.js",
      "src/lib/b.ts",
      "src/a.ts",
    ]);
    expect(await glob({ pattern: "./lib/?.ts", path: "src" })).toEqual(["src/lib/b.ts"]);
    expect(await glob({ pattern: "**/*.py" })).toEqual([]);
  });

  it("returns only the newest paths with limit, and says how many more matched", async () => {
    await putInOrder("a.ts", "b.ts", "c.md", "d.ts", "e.ts", "f.ts");
    for (const name of ["g.ts", "h.ts"]) await utimes(await ws.put(name, "x"), 1_600_000_000, 1_600_000_000);
    const limited = outputOf<GlobData>(await ws.session.call("glob", { pattern: "*.ts", limit: 3 }));
    expect(limited).toEqual({ files: ["f.ts", "e.ts", "d.ts"], omitted: 4 });
    const ties = outputOf<GlobData>(await ws.session.call("glob", { pattern: "[gh].ts", limit: 1 }));
    expect(ties).toEqual({ files: ["g.ts"], omitted: 1 });
    const all = outputOf<GlobData>(await ws.session.call("glob", { pattern: "*.ts", limit: 7 }));
    expect(all).toEqual({ files: ["f.ts", "e.ts", "d.ts", "b.ts", "a.ts", "g.ts", "h.ts"] });
  });

  it("orders files with the same modification time by path", async () => {
    for (const name of ["b.txt", "c.txt", "a.txt"]) {
      const file = await ws.put(name, "x");
      await utimes(file, 1_700_000_000, 1_700_000_000);
    }
    expect(await glob({ pattern: "*.txt" })).toEqual(["a.txt", "b.txt", "c.txt"]);
  });

  it("honours nested .gitignore files with negation, and never lists .git", async () => {
    await ws.put(".gitignore", "*.log\n!keep.log\ndist/\n");
    await ws.put("pkg/.gitignore", "!pkg-only.log\ngenerated/\n");
    await putInOrder(
      "a.log",
      "keep.log",
      "dist/x.js",
      "pkg/pkg-only.log",
      "pkg/other.log",
      "pkg/generated/g.ts",
      "pkg/src.ts",
    );
    await ws.put(".git/HEAD", "ref: refs/heads/main\n");
    await ws.put(".git/info/exclude", "*.secret\n");
    await ws.put("token.secret", "t");
    expect((await glob({ pattern: "**/*" })).sort()).toEqual([
      ".gitignore",
      "keep.log",
      "pkg/.gitignore",
      "pkg/pkg-only.log",
      "pkg/src.ts",
    ]);
    expect(await glob({ pattern: ".git/**" })).toEqual([]);
  });

  it("does not follow symlinked folders and lists a symlinked file only when it points inside", async () => {
    await writeFile(path.join(outside, "secret.txt"), "s");
    await ws.put("inside.txt", "i");
    await symlink(outside, ws.abs("out-dir"));
    await symlink(ws.abs("."), ws.abs("loop"));
    await symlink(path.join(outside, "secret.txt"), ws.abs("out-file.txt"));
    await symlink(ws.abs("inside.txt"), ws.abs("in-file.txt"));
    expect((await glob({ pattern: "**/*.txt" })).sort()).toEqual(["in-file.txt", "inside.txt"]);
  });

  it.each([
    [{ pattern: "*", path: ".." }, /Access denied/],
    [{ pattern: "*", path: "../outside" }, /Access denied/],
    [{ pattern: "*", path: "/etc" }, /Access denied/],
    [{ pattern: "*", path: "/proc/self" }, /Access denied/],
    [{ pattern: "*", path: "link-out" }, /Access denied/],
    [{ pattern: "/etc/*" }, /absolute path.*"path"/],
    [{ pattern: "../outside/*" }, /"\.\." segment.*"path"/],
    [{ pattern: "src/../../*" }, /"\.\." segment/],
    [{ pattern: "*", path: "missing" }, /does not exist/],
    [{ pattern: "*", path: "file.txt" }, /is a file, not a folder/],
    [{ pattern: "" }, /Invalid arguments for glob/],
    [{ pattern: "*", extra: 1 }, /unknown property "extra"/],
    [{ pattern: "*", limit: 0 }, /"limit"/],
    [{ pattern: "*", limit: 1001 }, /"limit"/],
    [{ pattern: "*", limit: 2.5 }, /"limit"/],
    [{ pattern: "*", limit: "5" }, /"limit"/],
    [{ path: "." }, /missing required property "pattern"/],
  ])("refuses %j with a clear error", async (args, message) => {
    await symlink(outside, ws.abs("link-out"));
    await ws.put("file.txt", "x");
    expect(errorOf(await ws.session.call("glob", args))).toMatch(message);
  });

  it("keeps the newest 1000 paths and writes every path to a sidecar from the 1001st on", async () => {
    await mkdir(ws.abs("many"));
    const names = Array.from(
      { length: OUTPUT_LIMITS.globEntries + 1 },
      (_, i) => `many/f${String(i).padStart(4, "0")}.txt`,
    );
    await Promise.all(names.map((n) => writeFile(ws.abs(n), "")));
    await Promise.all(names.map((n, i) => utimes(ws.abs(n), 1_700_000_000 + i, 1_700_000_000 + i)));

    const envelope = await ws.session.call("glob", { pattern: "many/*.txt" });
    const files = outputOf<GlobData>(envelope).files;
    expect(files).toHaveLength(1000);
    expect(files[0]).toBe("many/f1000.txt");
    expect(envelope.metadata.truncated).toBe(true);
    const sidecar = await readFile(envelope.metadata.output_path as string, "utf8");
    expect(sidecar.trimEnd().split("\n")).toEqual([...names].reverse());
    expect(envelope.metadata.left_out).toBe(
      `Only the first 1000 of 1001 entries are shown; 1 is left out. All of it is in ${envelope.metadata.output_path}.`,
    );
    expect(envelope.metadata.read_rest).toBe(
      `Search it with grep (path "${envelope.metadata.output_path}"), read it in parts with read (offset, limit), or see its end with bash \`tail -n 100 ${envelope.metadata.output_path}\`.`,
    );

    await writeFile(ws.abs("many/f1000.txt"), "");
    await ws.put("other/x.txt", "");
    const exact = await ws.session.call("glob", { pattern: "many/f0*.txt" });
    expect(outputOf<GlobData>(exact).files).toHaveLength(1000);
    expect(exact.metadata.truncated).toBeUndefined();
  });
});

describe("names that are not valid UTF-8 (Linux allows any bytes but / and NUL)", () => {
  /** An absolute path as bytes: the root, then raw name bytes. */
  const raw = (...parts: Array<string | number[]>): Buffer =>
    Buffer.concat([
      Buffer.from(ws.root),
      ...parts.map((p) =>
        Buffer.concat([Buffer.from("/"), typeof p === "string" ? Buffer.from(p) : Buffer.from(p)]),
      ),
    ]);
  // "café.txt" as a latin1 system (or an old zip) writes it: 0xE9 for é.
  const latin1Name = [...Buffer.from("caf"), 0xe9, ...Buffer.from(".txt")];

  beforeEach(async () => {
    await writeFile(raw(latin1Name), "hit\n");
    await mkdir(raw([0x6f, 0x6c, 0x64, 0xff]));
    await writeFile(raw([0x6f, 0x6c, 0x64, 0xff], "inside.txt"), "hit\n");
    await ws.put("plain.txt", "hit\n");
    // A valid name that holds U+FFFD itself is an ordinary name.
    await ws.put("odd\uFFFD.txt", "hit\n");
  });

  it.each([
    ["glob", { pattern: "**/*" }, (d: Record<string, unknown>) => d["files"]],
    ["grep", { pattern: "hit" }, (d: Record<string, unknown>) => d["files"]],
  ])("%s lists the others and says which it left out and how to rename them", async (tool, args, listed) => {
    const data = outputOf<Record<string, unknown>>(await ws.session.call(tool, args));
    expect((listed(data) as string[]).sort()).toEqual(["odd\uFFFD.txt", "plain.txt"]);
    expect(data["note"]).toMatch(/left out 2 files or folders whose names are not valid UTF-8/);
    expect(data["note"]).toContain('"caf\uFFFD.txt"');
    expect(data["note"]).toContain('"old\uFFFD"');
    expect(data["note"]).toMatch(/rename them with bash/);
  });

  it.each([
    ["glob", { pattern: "*.md" }],
    ["grep", { pattern: "hit", glob: "*.md" }],
  ])("%s says nothing of them when they could not have matched", async (tool, args) => {
    await ws.put("readme.md", "hit\n");
    const data = outputOf<Record<string, unknown>>(await ws.session.call(tool, args));
    expect(data["files"]).toEqual(["readme.md"]);
    expect(String(data["note"])).not.toMatch(/caf/);
  });
});

describe("paths longer than a path may be (PATH_MAX)", () => {
  it.each(["glob", "grep"])("%s lists the rest and names the folder it could not open", async (tool) => {
    const deep = await makeTooDeepFolder(ws.root);
    try {
      await ws.put("top.txt", "hit\n");
      const data = outputOf<{ files: string[]; note?: string }>(
        await ws.session.call(tool, tool === "glob" ? { pattern: "**/*.txt" } : { pattern: "hit" }),
      );
      expect(data.files).toEqual(["top.txt"]);
      expect(data.note).toMatch(
        /left out a file or folder whose path is longer than the 4095 bytes a path may have/,
      );
      expect(data.note?.length).toBeLessThan(400);
    } finally {
      await deep.remove();
    }
  });
});
