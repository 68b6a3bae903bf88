import { spawnSync } from "node:child_process";
import { mkdir, readFile, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OUTPUT_LIMITS } from "../tools/truncation.ts";
import type { GrepCount, GrepMatch } from "./grep.ts";
import { MAX_LINE_CHARS } from "./line-matcher.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";

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

async function files(args: Record<string, unknown>): Promise<string[]> {
  return outputOf<{ files: string[] }>(await ws.session.call("grep", args)).files;
}

async function matches(args: Record<string, unknown>): Promise<GrepMatch[]> {
  return outputOf<{ matches: GrepMatch[] }>(
    await ws.session.call("grep", { ...args, output_mode: "content" }),
  ).matches;
}

async function counts(args: Record<string, unknown>): Promise<GrepCount[]> {
  return outputOf<{ counts: GrepCount[] }>(await ws.session.call("grep", { ...args, output_mode: "count" }))
    .counts;
}

/** Create files whose modification times increase in the order given (the last is newest). */
async function putInOrder(entries: [string, string][]): Promise<void> {
  const t0 = Date.now() / 1000 - 10_000;
  for (const [i, [relative, content]] of entries.entries()) {
    const file = await ws.put(relative, content);
    await utimes(file, t0 + i * 10, t0 + i * 10);
  }
}

describe("grep", () => {
  it("is published as a read-only, ungated search tool that reads the workspace and its session's sidecars", () => {
    const info = ws.engine.listTools().find((t) => t.id === "grep");
    expect(info).toMatchObject({
      readOnly: true,
      gated: false,
      kind: "search",
      requires: { fs: { read: ["{workspace}/**", "{session}/**"] } },
    });
    expect(Object.keys(info?.parameters.properties as object).sort()).toEqual([
      "glob",
      "ignore_case",
      "output_mode",
      "path",
      "pattern",
    ]);
  });

  it("lists the files that match, newest first, by default", async () => {
    await putInOrder([
      ["old.ts", "export function load() {}\n"],
      ["src/mid.ts", "const x = load();\n"],
      ["src/none.ts", "nothing here\n"],
      ["new.md", "call load() first\n"],
    ]);
    expect(await files({ pattern: "load\\(" })).toEqual(["new.md", "src/mid.ts", "old.ts"]);
    expect(await files({ pattern: "load", path: "src" })).toEqual(["src/mid.ts"]);
    expect(await files({ pattern: "^export function \\w+" })).toEqual(["old.ts"]);
    expect(await files({ pattern: "absent_string" })).toEqual([]);
  });

  it("returns each matching line with its 1-based number and text, without the line break", async () => {
    await ws.put("b.txt", "alpha\r\nbeta TODO\r\ngamma\r\nTODO twice TODO\r\n");
    await ws.put("a.txt", "TODO first\nsecond\nlast TODO");
    expect(await matches({ pattern: "TODO" })).toEqual([
      { path: "a.txt", line: 1, text: "TODO first" },
      { path: "a.txt", line: 3, text: "last TODO" },
      { path: "b.txt", line: 2, text: "beta TODO" },
      { path: "b.txt", line: 4, text: "TODO twice TODO" },
    ]);
    expect(await matches({ pattern: "^gamma$" })).toEqual([{ path: "b.txt", line: 3, text: "gamma" }]);
  });

  it("counts matching lines (not matches) per file", async () => {
    await ws.put("a.txt", "x x x\ny\nx\n");
    await ws.put("b/c.txt", "no\n");
    await ws.put("b/d.txt", "xx\n");
    expect(await counts({ pattern: "x" })).toEqual([
      { path: "a.txt", count: 2 },
      { path: "b/d.txt", count: 1 },
    ]);
  });

  it("answers a pattern that backtracks catastrophically, where V8's linear-time engine can take it", async () => {
    const line = `${"a".repeat(40)}b`;
    // Positive control: outside Lathe, without the linear-time fallback, it does not end in a second.
    const plain = spawnSync(process.execPath, ["-e", `/(a+)+$/.test(${JSON.stringify(line)})`], {
      timeout: 1_000,
    });
    expect(plain.signal).toBe("SIGTERM");
    await ws.put("redos.txt", `${line}\naaaa\n`);
    expect(await counts({ pattern: "(a+)+$" })).toEqual([{ path: "redos.txt", count: 1 }]);
  });

  describe("regex dialect", () => {
    const TEXT = "Ünïcode Word\nplain ascii\nemoji 😀 x\nfoo-bar\n";
    it.each([
      ["a Unicode property", { pattern: "\\p{Lu}" }, [1]],
      ["a negated Unicode property", { pattern: "^\\P{L}+$" }, []],
      ["a property and a literal", { pattern: "\\p{L}+code" }, [1]],
      ["a code point escape", { pattern: "\\u{1F600}" }, [3]],
      [
        "one astral character as one '.' when Unicode escapes are used",
        { pattern: "\\p{L} .\\u{20}x$" },
        [3],
      ],
      ["a property, ignoring case", { pattern: "\\p{Ll}ORD", ignore_case: true }, [1]],
      ["a legacy escape without Unicode escapes", { pattern: "foo\\-bar" }, [4]],
      ["a case-insensitive modifier group", { pattern: "(?i:WORD)" }, [1]],
    ])("finds %s as ripgrep does", async (_what, args, lines) => {
      await ws.put("u.txt", TEXT);
      const found = (await matches(args)).map((m) => m.line);
      expect(found).toEqual(lines);
      // The same pattern, given to ripgrep (the flavour models know), finds the same lines.
      const rg = spawnSync(
        "rg",
        ["-n", ...("ignore_case" in args ? ["-i"] : []), "--", args.pattern, "u.txt"],
        {
          cwd: ws.root,
          encoding: "utf8",
        },
      );
      if (rg.error) console.log(`ripgrep is not installed: not compared (${rg.error.message})`);
      else
        expect(
          rg.stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => Number(l.split(":")[0])),
        ).toEqual(lines);
    });

    it.each([
      ["[[:upper:]]+", /POSIX class.*\\p\{Lu\}/],
      ["[^[:space:]]", /POSIX class/],
      ["x[[:digit:]]", /POSIX class/],
      ["(?i)word", /inline flags \(\?i\).*"ignore_case": true/],
      ["^(?s)a.b", /inline flags \(\?s\)/],
      ["\\x{1F600}", /\\x\{…\}.*\\u\{1F600\}/],
      ["\\Aplain", /\\A.*\^ or \$/],
      ["ascii\\z", /\\z.*\^ or \$/],
      ["\\p{NotAProperty}", /not a valid JavaScript regular expression.*Invalid property name/],
    ])("refuses %s, which JavaScript would misread, saying what to write", async (pattern, message) => {
      await ws.put("u.txt", TEXT);
      expect(errorOf(await ws.session.call("grep", { pattern }))).toMatch(message);
    });

    it.each([
      ["a literal [:alpha:] escaped", "\\[:alpha:\\]", "[:alpha:]"],
      ["an escaped backslash before A", "\\\\A", "\\A"],
      ["an escaped backslash before p{", "\\\\p\\{x\\}", "\\p{x}"],
    ])("still takes %s", async (_what, pattern, text) => {
      await ws.put("lit.txt", `${text}\n`);
      expect(await matches({ pattern })).toEqual([{ path: "lit.txt", line: 1, text }]);
    });
  });

  it("matches regardless of case with ignore_case", async () => {
    await ws.put("a.txt", "Hello World\n");
    await ws.put("b.txt", "HELLO\n");
    await ws.put("c.txt", "help\n");
    expect((await files({ pattern: "hello" })).sort()).toEqual([]);
    expect((await files({ pattern: "hello", ignore_case: true })).sort()).toEqual(["a.txt", "b.txt"]);
    expect(await matches({ pattern: "WORLD$", ignore_case: true })).toEqual([
      { path: "a.txt", line: 1, text: "Hello World" },
    ]);
  });

  it("filters files with glob like ripgrep: a name pattern anywhere, a path pattern from path, ! to exclude", async () => {
    for (const f of ["a.ts", "src/b.ts", "src/c.js", "src/deep/d.ts", "lib/e.min.js", "lib/f.js"])
      await ws.put(f, "needle\n");
    const sorted = async (args: Record<string, unknown>): Promise<string[]> => (await files(args)).sort();
    expect(await sorted({ pattern: "needle", glob: "*.ts" })).toEqual(["a.ts", "src/b.ts", "src/deep/d.ts"]);
    expect(await sorted({ pattern: "needle", glob: "src/*.ts" })).toEqual(["src/b.ts"]);
    expect(await sorted({ pattern: "needle", glob: "*.ts", path: "src" })).toEqual([
      "src/b.ts",
      "src/deep/d.ts",
    ]);
    expect(await sorted({ pattern: "needle", glob: "deep/*", path: "src" })).toEqual(["src/deep/d.ts"]);
    expect(await sorted({ pattern: "needle", glob: "*.{js,ts}", path: "lib" })).toEqual([
      "lib/e.min.js",
      "lib/f.js",
    ]);
    expect(await sorted({ pattern: "needle", glob: "!*.min.js", path: "lib" })).toEqual(["lib/f.js"]);
  });

  it("searches one file given as path, whatever the glob says", async () => {
    await ws.put("src/a.ts", "one\ntwo needle\n");
    expect(await matches({ pattern: "needle", path: "src/a.ts", glob: "*.md" })).toEqual([
      { path: "src/a.ts", line: 2, text: "two needle" },
    ]);
  });

  it("honours nested .gitignore files with negation, and never searches .git", async () => {
    await ws.put(".gitignore", "*.log\nbuild/\n");
    await ws.put("pkg/.gitignore", "!wanted.log\n");
    for (const f of ["a.log", "build/out.js", "pkg/wanted.log", "pkg/other.log", "pkg/src.ts", "top.ts"])
      await ws.put(f, "needle\n");
    await ws.put(".git/config", "needle\n");
    await ws.put(".git/info/exclude", "excluded.ts\n");
    await ws.put("excluded.ts", "needle\n");
    expect((await files({ pattern: "needle" })).sort()).toEqual(["pkg/src.ts", "pkg/wanted.log", "top.ts"]);
  });

  it("skips binary files (a NUL byte in the first 64 KB), stops a longer file at a later NUL, reads UTF-16 with a BOM", async () => {
    await ws.put("bin.dat", Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2])]));
    const nulAt = (at: number, needleAt: number): Buffer => {
      const bytes = Buffer.alloc(at + 100, 0x61);
      bytes[at] = 0;
      bytes.write("needle\n", needleAt);
      return bytes;
    };
    await ws.put("nul-at-60k.txt", nulAt(60_000, 0));
    await ws.put("nul-at-70k.txt", nulAt(70_000, 0));
    await ws.put("nul-at-70k-needle-after.txt", nulAt(70_000, 70_010));
    await ws.put(
      "utf16.txt",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("first\nthe needle\n", "utf16le")]),
    );
    await ws.put("text.txt", "needle\n");
    const expected = ["nul-at-70k.txt", "text.txt", "utf16.txt"];
    expect((await files({ pattern: "needle" })).sort()).toEqual(expected);
    expect((await files({ pattern: "ne+dle" })).sort()).toEqual(expected);
    expect((await counts({ pattern: "needle" })).map((c) => c.path)).toEqual(expected);
    expect(await matches({ pattern: "needle", path: "utf16.txt" })).toEqual([
      { path: "utf16.txt", line: 2, text: "the needle" },
    ]);
  });

  // A file named as path is searched even when it holds NUL bytes, as rg reports "binary file
  // matches" for one: a command's output kept in a sidecar may hold a stray NUL, and an empty
  // result would tell the model the text is not there.
  it.each([
    ["a NUL in its first line", Buffer.from("start\0\nhay\nthe needle\n"), 3, "the needle"],
    [
      "a NUL at 70 000, the match after it",
      Buffer.concat([Buffer.alloc(70_000, 0x61), Buffer.from("\0\nthe needle\n")]),
      2,
      "the needle",
    ],
    ["a NUL inside the matching line", Buffer.from("hay\nthe\0needle\n"), 2, "the\u2400needle"],
  ])(
    "searches a file it is given by name as text, NUL bytes and all: %s",
    async (_what, bytes, line, text) => {
      await ws.put("out.txt", bytes);
      const named = { pattern: "needle", path: "out.txt" };
      expect(await matches(named)).toEqual([{ path: "out.txt", line, text }]);
      expect(await files(named)).toEqual(["out.txt"]);
      expect(await counts(named)).toEqual([{ path: "out.txt", count: 1 }]);
      const envelope = await ws.session.call("grep", named);
      expect(outputOf<{ binary?: string }>(envelope).binary).toMatch(
        /^out\.txt holds NUL bytes, as binary files do: it was searched as text/,
      );
      // Control: searching its folder skips it, as rg does.
      expect(await files({ pattern: "needle" })).toEqual([]);
    },
  );

  it("says nothing of NUL bytes for a named text file", async () => {
    await ws.put("plain.txt", "the needle\n");
    const data = outputOf<{ binary?: string; matches: GrepMatch[] }>(
      await ws.session.call("grep", { pattern: "needle", path: "plain.txt", output_mode: "content" }),
    );
    expect(data).toEqual({ matches: [{ path: "plain.txt", line: 1, text: "the needle" }] });
  });

  it("searches UTF-16 text without a BOM, LE and BE, and still skips a binary file with the same bytes in it", async () => {
    await ws.put("le.csv", Buffer.from("first\r\nthe needle\r\n", "utf16le"));
    await ws.put("be.txt", Buffer.from("the needle\n", "utf16le").swap16());
    await ws.put("blob.bin", Buffer.concat([Buffer.from("needle", "utf16le"), Buffer.alloc(8)]));
    expect((await files({ pattern: "needle" })).sort()).toEqual(["be.txt", "le.csv"]);
    expect((await files({ pattern: "ne+dle" })).sort()).toEqual(["be.txt", "le.csv"]);
    expect(await matches({ pattern: "needle", path: "le.csv" })).toEqual([
      { path: "le.csv", line: 2, text: "the needle" },
    ]);
  });

  describe("reads each file as read does, so the text grep shows is the text edit matches", () => {
    const latin1 = (text: string) => Buffer.from(text, "latin1");
    it.each([
      ["latin1, found by its accented word", latin1("x\ncafé crème\n"), "café", "café crème"],
      ["latin1, found by a plain ASCII word", latin1("x\ncafé crème\n"), "crème|cr", "café crème"],
      ["latin1, found by a pattern with a class", latin1("x\nna\xefve\n"), "na[ï]ve", "naïve"],
      ["latin1 holding what UTF-8 would write é as", latin1("x\nÃ© and é\n"), "Ã©", "Ã© and é"],
      ["UTF-8", Buffer.from("x\ncafé crème\n"), "café", "café crème"],
      ["UTF-8 with a BOM", Buffer.from("\ufeffx\ncafé crème\n"), "café", "café crème"],
      [
        "UTF-16LE without a BOM, in Japanese (few of its units are ASCII)",
        Buffer.from(
          "今日は朝から雨が降っている。\n窓の外を見ながら、温かいお茶を飲んだ。\n午後には晴れるといいのだが、天気予報は曇りだと言っていた。\n明日は友達と公園へ行く予定だ。\n",
          "utf16le",
        ),
        "お茶",
        "窓の外を見ながら、温かいお茶を飲んだ。",
      ],
      [
        "UTF-16BE without a BOM, in Russian",
        Buffer.from(
          "Утром шёл дождь, и мы остались дома.\nВечером небо прояснилось, и мы пошли гулять у реки.\n",
          "utf16le",
        ).swap16(),
        "гулять",
        "Вечером небо прояснилось, и мы пошли гулять у реки.",
      ],
    ])("%s", async (_name, bytes, pattern, line) => {
      await ws.put("f.txt", bytes);
      const read = outputOf<{ content: string }>(await ws.session.call("read", { path: "f.txt" })).content;
      expect(read.split("\n")[1]).toBe(line);
      expect(await files({ pattern })).toEqual(["f.txt"]);
      expect(await matches({ pattern })).toEqual([{ path: "f.txt", line: 2, text: line }]);
      expect(await counts({ pattern })).toEqual([{ path: "f.txt", count: 1 }]);
      // The line as grep shows it is what edit finds in the file.
      const edited = await ws.session.call("edit", { path: "f.txt", old_string: line, new_string: "done" });
      expect(edited.type).toBe("output");
    });

    it("does not find in a UTF-8 file the latin1 bytes of a word (é written as 0xE9 is not é there)", async () => {
      // 0xE9 starts a three-byte UTF-8 character (U+9000-U+9FFF): the file holds 退, not é.
      await ws.put("cjk.txt", "退\n");
      expect(await files({ pattern: "é" })).toEqual([]);
    });
  });

  it("does not follow symlinked folders and searches a symlinked file only when it points inside", async () => {
    await writeFile(path.join(outside, "secret.txt"), "needle\n");
    await ws.put("inside.txt", "needle\n");
    await symlink(outside, ws.abs("out-dir"));
    await symlink(path.join(outside, "secret.txt"), ws.abs("out-file.txt"));
    await symlink(ws.abs("inside.txt"), ws.abs("in-file.txt"));
    expect((await files({ pattern: "needle" })).sort()).toEqual(["in-file.txt", "inside.txt"]);
  });

  it("finds matches anywhere in a large file, not just its first block", async () => {
    const filler = "filler line\n".repeat(60_000); // ~700 KB
    await ws.put("big.txt", `${filler}needle at the end\n`);
    expect(await matches({ pattern: "needle" })).toEqual([
      { path: "big.txt", line: 60_001, text: "needle at the end" },
    ]);
  });

  it("cuts very long lines around the match and says so", async () => {
    const long = `${"a".repeat(5000)}needle${"b".repeat(5000)}`;
    await ws.put("long.txt", `short needle\n${long}\n`);
    const [short, cut] = await matches({ pattern: "needle" });
    expect(short?.text).toBe("short needle");
    expect(cut?.line).toBe(2);
    expect(cut?.text).toContain("needle");
    expect(cut?.text).toMatch(/^….*… \[line cut: 10006 characters\]$/);
    expect(cut?.text.length).toBeLessThan(MAX_LINE_CHARS + 50);
  });

  it.each([
    [
      { pattern: "(unclosed" },
      /not a valid JavaScript regular expression: Invalid regular expression: .*Unterminated group/,
    ],
    [{ pattern: "a[" }, /not a valid JavaScript regular expression: .*Unterminated character class/],
    [{ pattern: "*x" }, /not a valid JavaScript regular expression: .*Nothing to repeat/],
    [{ pattern: "x", path: ".." }, /Access denied/],
    [{ pattern: "x", path: "/etc/passwd" }, /Access denied/],
    [{ pattern: "x", path: "../outside" }, /Access denied/],
    [{ pattern: "x", path: "link-out" }, /Access denied/],
    [{ pattern: "x", path: "missing.txt" }, /does not exist/],
    [{ pattern: "x", glob: "/etc/*" }, /absolute path/],
    [{ pattern: "x", glob: "../*.ts" }, /"\.\." segment/],
    [
      { pattern: "x", output_mode: "lines" },
      /"output_mode" must be one of "files_with_matches", "content", "count"/,
    ],
    [{ pattern: "x", ignore_case: "yes" }, /"ignore_case" must be boolean/],
    [{ pattern: "" }, /Invalid arguments for grep/],
  ])("refuses %j with a clear error", async (args, message) => {
    await symlink(outside, ws.abs("link-out"));
    expect(errorOf(await ws.session.call("grep", args))).toMatch(message);
  });

  it("keeps 200 matching lines and writes every one (path:line:text) to a sidecar from the 201st on", async () => {
    const lines = Array.from({ length: OUTPUT_LIMITS.grepMatches + 1 }, (_, i) => `hit ${i}`);
    await ws.put("many.txt", `${lines.join("\n")}\n`);
    const envelope = await ws.session.call("grep", { pattern: "^hit", output_mode: "content" });
    const data = outputOf<{ matches: GrepMatch[] }>(envelope);
    expect(data.matches).toHaveLength(200);
    expect(data.matches[199]).toEqual({ path: "many.txt", line: 200, text: "hit 199" });
    expect(envelope.metadata.truncated).toBe(true);
    const sidecar = await readFile(envelope.metadata.output_path as string, "utf8");
    expect(sidecar.trimEnd().split("\n")).toEqual(lines.map((l, i) => `many.txt:${i + 1}:${l}`));

    const exact = await ws.session.call("grep", {
      pattern: "^hit \\d+$",
      output_mode: "content",
      path: "many.txt",
    });
    expect(exact.metadata.truncated).toBe(true);
    const fits = await ws.session.call("grep", {
      pattern: "^hit (\\d|\\d\\d|1\\d\\d)$",
      output_mode: "content",
    });
    expect(outputOf<{ matches: GrepMatch[] }>(fits).matches).toHaveLength(200);
    expect(fits.metadata.truncated).toBeUndefined();
  });

  it("truncates the file list and the counts at 200 entries too", async () => {
    await mkdir(ws.abs("f"));
    const names = Array.from({ length: 201 }, (_, i) => `f/${String(i).padStart(3, "0")}.txt`);
    await Promise.all(names.map((n) => writeFile(ws.abs(n), "needle\n")));
    const listed = await ws.session.call("grep", { pattern: "needle" });
    expect(outputOf<{ files: string[] }>(listed).files).toHaveLength(200);
    const listedAll = await readFile(listed.metadata.output_path as string, "utf8");
    expect(listedAll.trimEnd().split("\n").sort()).toEqual(names);
    const counted = await ws.session.call("grep", { pattern: "needle", output_mode: "count" });
    expect(outputOf<{ counts: GrepCount[] }>(counted).counts).toHaveLength(200);
    const countedAll = await readFile(counted.metadata.output_path as string, "utf8");
    expect(countedAll.trimEnd().split("\n")).toEqual(names.map((n) => `${n}:1`));
  });

  it("stops promptly when the call is aborted mid-walk", async () => {
    const text = `${"filler line without the word\n".repeat(200)}`;
    for (let d = 0; d < 40; d++) {
      await mkdir(ws.abs(`d${d}`));
      await Promise.all(Array.from({ length: 100 }, (_, f) => writeFile(ws.abs(`d${d}/f${f}.txt`), text)));
    }
    const args = { pattern: "w[aeiou]rd\\s+\\d", output_mode: "content" };
    const started = performance.now();
    const full = await ws.session.call("grep", args);
    const fullMs = performance.now() - started;
    expect(full.type).toBe("output");

    // Under load the timer can fire before the call reaches its walk ("aborted before it
    // started", correct too, but not what this test is about): then try again, a little later.
    let envelope: Awaited<ReturnType<typeof ws.session.call>> | undefined;
    let lag = Infinity;
    for (const delay of [5, 10, 20, 40]) {
      const controller = new AbortController();
      let abortedAt = 0;
      setTimeout(() => {
        abortedAt = performance.now();
        controller.abort(new Error("user pressed stop"));
      }, delay);
      envelope = await ws.session.call("grep", args, { signal: controller.signal });
      lag = performance.now() - abortedAt;
      if (!/before it started/.test(errorOf(envelope))) break;
    }
    expect(errorOf(envelope)).toMatch(/grep was aborted: user pressed stop/);
    expect(lag).toBeLessThan(Math.max(50, fullMs / 2));
  });
});
