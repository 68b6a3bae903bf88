import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import type { Session } from "../src/main/engine/session/session.ts";
import type { Envelope, OutputEnvelope } from "../src/main/engine/tools/envelope.ts";

// A cut result tells the model where all of it is (metadata.output_path) and how to see the
// rest (metadata.read_rest). A model in a headless run (CI: ask mode, nobody to approve bash)
// must be able to do what that says with the tools it has: search the file with grep, read it
// in parts with read. Another session must not reach it.

const LINES = 60_000;
const NEEDLE_AT = 54_321;

let base: string;
let engine: Engine;
let session: Session;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-sidecar-follow-")));
  const root = path.join(base, "ws");
  const home = path.join(base, "home");
  await mkdir(path.join(root, "many"), { recursive: true });
  await mkdir(home);
  await writeFile(path.join(home, "settings.json"), "{}\n");
  const lines = Array.from({ length: LINES }, (_, i) => `entry ${i} ${i === NEEDLE_AT ? "needle" : "hay"}`);
  await writeFile(path.join(root, "log.txt"), `${lines.join("\n")}\n`);
  // Under 256 KB, so the pipeline cuts a read of it rather than the read itself.
  const mid = Array.from({ length: 15_000 }, (_, i) => `entry ${i} hay`.padEnd(15));
  await writeFile(path.join(root, "mid.txt"), `${mid.join("\n")}\n`);
  for (let i = 0; i < 1_100; i++)
    await writeFile(path.join(root, "many", `f${i}${i === 777 ? "-needle" : ""}.txt`), "");
  engine = await Engine.create({ root, latheHome: home, extensions: false });
  // The default mode, headless: bash would need a person, so only the ungated tools are at hand.
  session = await engine.openSession({});
});

afterAll(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

function cut(envelope: Envelope): OutputEnvelope & { metadata: { output_path: string; read_rest: string } } {
  expect(envelope.type, JSON.stringify(envelope).slice(0, 300)).toBe("output");
  expect(envelope.metadata.truncated).toBe(true);
  expect(envelope.metadata.output_path).toBeTypeOf("string");
  return envelope as ReturnType<typeof cut>;
}

const CUT_RESULTS = [
  ["read", { path: "log.txt" }],
  ["grep", { pattern: "entry", path: "log.txt", output_mode: "content" }],
  ["glob", { pattern: "many/*.txt" }],
] as const;

describe("following a cut result's read_rest in a headless session", () => {
  it.each(CUT_RESULTS)("%s: grep finds a line of the whole output in its file", async (tool, args) => {
    const { metadata } = cut(await session.call(tool, args));
    const found = await session.call("grep", {
      pattern: "needle",
      path: metadata.output_path,
      output_mode: "content",
    });
    expect(found.type, JSON.stringify(found).slice(0, 400)).toBe("output");
    const { matches } = (found as OutputEnvelope<{ matches: { text: string }[] }>).data;
    expect(matches).toHaveLength(1);
    expect(matches[0]?.text).toContain("needle");
    // And the note says so, naming the file as grep's path.
    expect(metadata.read_rest).toContain(`grep (path "${metadata.output_path}")`);
  });

  it.each(CUT_RESULTS)("%s: read shows any part of it with offset and limit", async (tool, args) => {
    const { metadata } = cut(await session.call(tool, args));
    const part = await session.call("read", { path: metadata.output_path, offset: 3, limit: 2 });
    expect(part.type, JSON.stringify(part).slice(0, 400)).toBe("output");
    expect((part as OutputEnvelope<{ start_line: number; end_line: number }>).data).toMatchObject({
      start_line: 3,
      end_line: 4,
    });
  });

  // A cut read of a range (offset 1001) keeps that range in its file, numbered from 1 there: a
  // model that goes on at offset end_line + 1 (as read's description says) in that file instead
  // of the one it read gets lines a thousand further on, and does not know it.
  it.each([
    ["from the start", { path: "log.txt" }, 1],
    ["from line 1001", { path: "log.txt", offset: 1001 }, 1001],
    ["from line 101 of a file under 256 KB (cut by the pipeline)", { path: "mid.txt", offset: 101 }, 101],
  ])(
    "read %s: read_rest says where to go on, and doing so gives the next line",
    async (_what, args, first) => {
      const envelope = cut(await session.call("read", args));
      const { end_line: endLine } = (envelope as OutputEnvelope<{ end_line: number }>).data;
      const { read_rest: readRest, output_path: file } = envelope.metadata;
      expect(readRest).toContain(`read (path "${args.path}", offset ${endLine + 1})`);
      const next = await session.call("read", { path: args.path, offset: endLine + 1, limit: 1 });
      expect((next as OutputEnvelope<{ content: string }>).data.content).toMatch(
        new RegExp(`^entry ${endLine} hay *\\n$`),
      );
      if (first > 1) expect(readRest).toContain(`line 1 of ${file} is line ${first} of ${args.path}`);
      else expect(readRest).not.toContain("line 1 of");
    },
  );

  it("another session can neither search nor read it", async () => {
    const { metadata } = cut(await session.call("read", { path: "log.txt" }));
    // Control: the file is there, and holds what is looked for.
    expect(await readFile(metadata.output_path, "utf8")).toContain("needle");
    const other = await engine.openSession({ mode: "yolo" });
    for (const [tool, args] of [
      ["grep", { pattern: "needle", path: metadata.output_path }],
      ["read", { path: metadata.output_path }],
    ] as const) {
      const envelope = await other.call(tool, args);
      expect(envelope.type).toBe("error");
      expect(JSON.stringify(envelope)).not.toContain("needle");
    }
  });

  // grep may now open its session's folder: nothing above it, however the path is spelled.
  it.each([
    ["the store", (sidecar: string) => path.join(path.dirname(sidecar), "..", "..", "..", "lathe.db")],
    ["the settings", (sidecar: string) => path.join(path.dirname(sidecar), "../../../settings.json")],
    ["the session's folder as a folder", (sidecar: string) => path.dirname(path.dirname(sidecar))],
    ["every session", (sidecar: string) => path.dirname(path.dirname(path.dirname(sidecar)))],
  ])("grep is refused %s from the sidecar's folder", async (_what, target) => {
    const { metadata } = cut(await session.call("read", { path: "log.txt" }));
    const where = target(metadata.output_path);
    // Control: what it names is there.
    expect(existsSync(where)).toBe(true);
    const envelope = await session.call("grep", { pattern: "e", path: where });
    expect(envelope.type, JSON.stringify(envelope).slice(0, 300)).toBe("error");
  });
});
