import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { startTestServer, type TestServer } from "./test-server.ts";
import { openPluginWorld, plugin, writePlugin, type PluginWorld } from "./plugin-test-kit.ts";
import type { Session } from "../../src/main/engine/session/session.ts";
import type { Envelope } from "../../src/main/engine/tools/envelope.ts";
import { outputOf } from "./envelope-of.ts";

/**
 * Test and benchmark support: the loads a hostile plugin or a model can put on the host, each
 * driven through the real engine (a real session, the real plugin host with hostile plugins in
 * a temp plugins folder, real files and a loopback server), each checking that its result is
 * right. `test/event-loop-lag.test.ts` runs them under a lag probe with a generous bound;
 * `bench/event-loop.bench.ts` reports their real lag against the 50 ms goal.
 */

export interface HostileLoad {
  id: string;
  /** What it does, for reports. */
  title: string;
  /** Put the files back as the load expects them (not measured). */
  prepare?(): Promise<void>;
  /** The load itself: only calls into the engine, so a probe around it measures the engine. */
  run(): Promise<unknown>;
  /** Check what `run` returned (not measured); throws when it is wrong, else sums it up. */
  check(result: unknown): Promise<string>;
}

/** Prepare, run `measured(run)`, check: how the test and the bench drive a load. */
export async function driveLoad<M>(
  load: HostileLoad,
  measured: (run: () => Promise<unknown>) => Promise<{ result: unknown } & M>,
): Promise<{ summary: string } & M> {
  await load.prepare?.();
  const outcome = await measured(() => load.run());
  return { ...outcome, summary: await load.check(outcome.result) };
}

export interface LoadScale {
  /** Concurrent `runtime.fs.readText` of one file, and the file's size in MB. */
  readers: number;
  readMb: number;
  /** Concurrent `runtime.shell.run`. */
  spawns: number;
  /** Lines of the files `edit` rewrites with replace_all. */
  editLines: readonly number[];
  /** Size of the file `write` creates and `runtime.fs.writeText` writes, in MB. */
  writeMb: number;
  /** Size of the file `read` and `grep` go through, in MB. */
  bigFileMb: number;
  /** Concurrent `runtime.net.fetch` of a 1 MB body. */
  fetches: number;
  /** Characters of the HTML page `web_fetch` converts. */
  htmlChars: number;
}

/** The sizes of the issue: what `npm run bench` measures. */
export const FULL_SCALE: LoadScale = {
  readers: 200,
  readMb: 8,
  spawns: 200,
  editLines: [20_000, 500_000],
  writeMb: 8,
  bigFileMb: 64,
  fetches: 100,
  htmlChars: 900_000,
};

export interface HostileWorld {
  world: PluginWorld;
  session: Session;
  loads: HostileLoad[];
  /** One light round of every kind of work, so first-use costs (worker start, JIT) are paid. */
  warm(): Promise<void>;
  cleanup(): Promise<void>;
}

const OPEN_ARGS = { type: "object", additionalProperties: true };
const READ_ALL = { fs: { read: ["{workspace}/**"] } };

/** Runs `n` copies of a runtime request at once and tallies what came back. */
function floodBody(request: string, check: string): string {
  return `const jobs = [];
for (let i = 0; i < args.n; i++) jobs.push(${request}.then((r) => ${check}, (e) => 'error: ' + e.message));
const out = await Promise.all(jobs);
const tally = {};
for (const o of out) tally[o] = (tally[o] ?? 0) + 1;
return tally;`;
}

const PLUGINS = {
  flood_read: plugin("flood_read", floodBody("runtime.fs.readText(args.path)", "'length ' + r.length"), {
    input_schema: OPEN_ARGS,
    requires: READ_ALL,
    timeoutMs: 600_000,
  }),
  flood_shell: plugin(
    "flood_shell",
    floodBody(
      "runtime.shell.run('echo', ['hi' + i])",
      "r.exit_code === 0 && r.output.startsWith('hi') ? 'ok' : 'bad'",
    ),
    {
      input_schema: OPEN_ARGS,
      requires: { shell: [{ cmd: "echo", args: [{ wildcard: true }] }] },
      timeoutMs: 600_000,
    },
  ),
  flood_fetch: plugin(
    "flood_fetch",
    floodBody("runtime.net.fetch(args.url)", "'status ' + r.status + ' length ' + r.text.length"),
    {
      input_schema: OPEN_ARGS,
      requires: { net: { hosts: ["127.0.0.1"] } },
      timeoutMs: 600_000,
    },
  ),
  big_writer: plugin(
    "big_writer",
    `const text = 'w'.repeat(args.bytes);
const jobs = [];
for (let i = 0; i < args.n; i++) jobs.push(runtime.fs.writeText('out/w' + i + '.txt', text).then((r) => r.bytes));
return await Promise.all(jobs);`,
    {
      input_schema: OPEN_ARGS,
      readOnly: false,
      requires: { fs: { write: ["{workspace}/out/**"] } },
      timeoutMs: 600_000,
    },
  ),
  many_objects: plugin(
    "many_objects",
    "const out = []; for (let i = 0; i < args.n; i++) out.push({ i, name: 'item ' + i }); return out;",
    { input_schema: OPEN_ARGS, timeoutMs: 600_000 },
  ),
  big_result: plugin("big_result", "return 'r'.repeat(args.chars);", {
    input_schema: OPEN_ARGS,
    timeoutMs: 600_000,
  }),
};

interface EditResult {
  replacements: number;
  diff: string;
  diff_omitted?: string;
}

function expectTally(what: string, result: unknown, key: string, count: number): string {
  const tally = result as Record<string, number>;
  if (Object.keys(tally).length !== 1 || tally[key] !== count) {
    throw new Error(`${what}: expected ${count} × "${key}", got ${JSON.stringify(tally)}`);
  }
  return `${count} × ${key}`;
}

function codeLines(count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) out += `const value${i} = compute(input, ${i});\n`;
  return out;
}

function bigHtml(chars: number): string {
  const rows: string[] = ["<!doctype html><html><head><title>Big page</title></head><body><h1>Big page</h1>"];
  let size = rows[0]?.length ?? 0;
  for (let i = 0; size < chars; i++) {
    const block =
      i % 3 === 0
        ? `<p>Paragraph ${i} with <a href="/p/${i}">a link</a> and <em>emphasis</em>.</p>`
        : i % 3 === 1
          ? `<ul><li>item ${i}</li><li><strong>bold ${i}</strong></li></ul>`
          : `<table><tr><th>k</th><th>v</th></tr><tr><td>${i}</td><td>value ${i}</td></tr></table>`;
    rows.push(block);
    size += block.length;
  }
  rows.push("</body></html>");
  return rows.join("\n");
}

/**
 * A workspace with hostile plugins in its user plugins folder, the files the loads need, a
 * loopback server (1 MB bodies, a big HTML page), and the loads themselves.
 */
export async function openHostileWorld(scale: LoadScale = FULL_SCALE): Promise<HostileWorld> {
  const oneMb = "b".repeat(1024 * 1024);
  // Encoded once: the server runs on the thread under test, and should cost it as little as it can.
  const oneMbBytes = Buffer.from(oneMb);
  const html = Buffer.from(bigHtml(scale.htmlChars));
  const server: TestServer = await startTestServer((req, res: ServerResponse) => {
    if (req.url === "/page.html") res.writeHead(200, { "content-type": "text/html" }).end(html);
    else res.writeHead(200, { "content-type": "text/plain" }).end(oneMbBytes);
  });
  const world = await openPluginWorld({
    arrange: async (w) => {
      for (const [folder, files] of Object.entries(PLUGINS)) await writePlugin(w.globalDir, folder, files);
      await writeFile(
        path.join(w.latheHome, "settings.json"),
        JSON.stringify({ web: { fetch: { allowPrivateHosts: ["127.0.0.1"] } } }),
      );
    },
  });
  const { root } = world;
  const line = "0123456789abcdef".repeat(4) + "\n";
  const linesFor = (mb: number): number => Math.floor((mb * 1024 * 1024) / line.length);
  await writeFile(path.join(root, "big.txt"), line.repeat(linesFor(scale.readMb)));
  await writeFile(path.join(root, "huge.log"), `${line.repeat(linesFor(scale.bigFileMb) - 1)}needle\n`);
  await writeFile(path.join(root, "redos.txt"), `${"a".repeat(40)}!\n`);
  await mkdir(path.join(root, "out"));
  const session = await world.session("yolo");
  const call = async <T>(toolId: string, args: unknown): Promise<T> =>
    outputOf<T>(await session.call(toolId, args));
  const readBytes = linesFor(scale.readMb) * line.length;
  const writeBytes = scale.writeMb * 1024 * 1024;

  const fail = (what: string, result: unknown): never => {
    throw new Error(`${what}; got ${JSON.stringify(result).slice(0, 300)}`);
  };
  const editLoad = (lines: number): HostileLoad => {
    const file = `code-${lines}.ts`;
    return {
      id: `edit-replace-all-${lines}`,
      title: `edit replace_all on every line of a ${lines}-line file`,
      prepare: async () => {
        await writeFile(path.join(root, file), codeLines(lines));
        await call("read", { path: file, limit: 1 });
      },
      run: () =>
        session.call("edit", {
          path: file,
          old_string: "compute(",
          new_string: "derive(",
          replace_all: true,
        }),
      check: async (result) => {
        const data = outputOf<EditResult>(result as Envelope);
        const text = await readFile(path.join(root, file), "utf8");
        const expected = codeLines(lines).replaceAll("compute(", "derive(");
        if (data.replacements !== lines || text !== expected)
          fail(`edit: expected ${lines} replacements`, data);
        if (data.diff === "" && data.diff_omitted === undefined) fail("edit: no diff and no note", data);
        return data.diff_omitted === undefined ? `diff of ${data.diff.length} characters` : "diff omitted";
      },
    };
  };
  const sparseText = Array.from({ length: 20_000 }, (_, i) =>
    i % 10 === 0 ? `mark(${i});\n` : `keep(${i});\n`,
  ).join("");

  const loads: HostileLoad[] = [
    {
      id: "plugin-read-flood",
      title: `${scale.readers} concurrent runtime.fs.readText of a ${scale.readMb} MB file (one plugin)`,
      run: () => call("flood_read", { n: scale.readers, path: "big.txt" }),
      check: async (tally) => expectTally("readText flood", tally, `length ${readBytes}`, scale.readers),
    },
    {
      id: "plugin-shell-flood",
      title: `${scale.spawns} concurrent runtime.shell.run (one plugin)`,
      run: () => call("flood_shell", { n: scale.spawns }),
      check: async (tally) => expectTally("shell.run flood", tally, "ok", scale.spawns),
    },
    {
      id: "plugin-fetch-flood",
      title: `${scale.fetches} concurrent runtime.net.fetch of 1 MB (one plugin)`,
      run: () => call("flood_fetch", { n: scale.fetches, url: `${server.origin}/mb` }),
      check: async (tally) =>
        expectTally("net.fetch flood", tally, `status 200 length ${oneMb.length}`, scale.fetches),
    },
    {
      id: "plugin-write",
      title: `4 concurrent runtime.fs.writeText of ${scale.writeMb} MB (one plugin)`,
      run: () => call("big_writer", { n: 4, bytes: writeBytes }),
      check: async (sizes) => {
        const onDisk = await Promise.all([0, 1, 2, 3].map((i) => stat(path.join(root, "out", `w${i}.txt`))));
        if (JSON.stringify(sizes) !== JSON.stringify([writeBytes, writeBytes, writeBytes, writeBytes]))
          fail("writeText: expected 4 × the size", sizes);
        if (onDisk.some((s) => s.size !== writeBytes))
          fail(
            "writeText: wrong sizes on disk",
            onDisk.map((s) => s.size),
          );
        return `4 × ${writeBytes} bytes written`;
      },
    },
    {
      id: "plugin-big-result",
      title: "a plugin returning 7 MB",
      run: () => session.call("big_result", { chars: 7 * 1024 * 1024 }),
      check: async (result) => {
        const envelope = result as Envelope;
        const text = outputOf<string>(envelope);
        if (!envelope.metadata.truncated || text !== "r".repeat(text.length) || text.length > 256 * 1024)
          fail("big result: expected a truncated head", envelope.metadata);
        return `head of ${text.length} characters, the rest in a sidecar`;
      },
    },
    {
      id: "plugin-many-objects",
      title: "a plugin returning 200 000 small objects",
      run: () => session.call("many_objects", { n: 200_000 }),
      check: async (result) => {
        const envelope = result as Envelope;
        const head = outputOf<string>(envelope);
        const whole = JSON.parse(
          await readFile(envelope.metadata.output_path as string, "utf8"),
        ) as unknown[];
        if (!envelope.metadata.truncated || !head.startsWith("[") || whole.length !== 200_000)
          fail("many objects: expected a head and the whole in a sidecar", envelope.metadata);
        return `head of ${head.length} characters, 200000 objects in a sidecar`;
      },
    },
    {
      id: "edit-replace-all-sparse",
      title: "edit replace_all on every 10th line of a 20000-line file (a real, bounded diff)",
      prepare: async () => {
        await writeFile(path.join(root, "sparse.ts"), sparseText);
        await call("read", { path: "sparse.ts", limit: 1 });
      },
      run: () =>
        session.call("edit", {
          path: "sparse.ts",
          old_string: "mark(",
          new_string: "seen(",
          replace_all: true,
        }),
      check: async (result) => {
        const data = outputOf<EditResult>(result as Envelope);
        const after = await readFile(path.join(root, "sparse.ts"), "utf8");
        if (data.replacements !== 2_000 || after !== sparseText.replaceAll("mark(", "seen("))
          fail("sparse edit: expected 2000 replacements", data.replacements);
        // Within 1 s the diff is made (its head here, the rest in a sidecar); a slow machine omits it.
        if (data.diff === "" && data.diff_omitted === undefined)
          fail("sparse edit: no diff and no note", data);
        return data.diff_omitted === undefined
          ? `diff of ${data.diff.length} characters`
          : "diff omitted (slow machine)";
      },
    },
    ...scale.editLines.map(editLoad),
    {
      id: "write-large",
      title: `write of a ${scale.writeMb} MB file`,
      run: () => call("write", { path: "written.txt", content: "x".repeat(writeBytes - 1) + "\n" }),
      check: async (data) => {
        const size = (await stat(path.join(root, "written.txt"))).size;
        if ((data as { bytes: number }).bytes !== writeBytes || size !== writeBytes)
          fail("write: wrong size", { data, size });
        return `${size} bytes written`;
      },
    },
    {
      id: "read-large",
      title: `read of a ${scale.bigFileMb} MB file`,
      run: () => session.call("read", { path: "huge.log" }),
      check: async (result) => {
        const envelope = result as Envelope;
        const data = outputOf<{ content: string; total_lines: number }>(envelope);
        if (
          !envelope.metadata.truncated ||
          data.total_lines !== linesFor(scale.bigFileMb) ||
          !data.content.startsWith(line)
        )
          fail("read: expected a truncated head", { ...envelope.metadata, total: data.total_lines });
        return `head of ${data.content.length} characters of ${data.total_lines} lines`;
      },
    },
    {
      id: "grep-large-file",
      title: `grep of a ${scale.bigFileMb} MB file`,
      run: () => call("grep", { pattern: "need(le|ful)$", path: "huge.log", output_mode: "content" }),
      check: async (data) => {
        const { matches } = data as { matches: { line: number; text: string }[] };
        if (
          matches.length !== 1 ||
          matches[0]?.line !== linesFor(scale.bigFileMb) ||
          matches[0]?.text !== "needle"
        )
          fail("grep: expected one match on the last line", matches);
        return "1 match, on the last line";
      },
    },
    {
      id: "grep-backtracking",
      title: "grep with a catastrophically backtracking pattern, stopped after 500 ms",
      run: async () => {
        const signal = AbortSignal.timeout(500);
        const started = performance.now();
        const envelope = await session.call("grep", { pattern: "(a+)+(?=b)", path: "redos.txt" }, { signal });
        return { envelope, elapsed: performance.now() - started };
      },
      check: async (result) => {
        const { envelope, elapsed } = result as { envelope: Envelope; elapsed: number };
        if (envelope.type !== "error" || !/grep was aborted/.test(envelope.error_text) || elapsed > 5_000)
          fail("grep backtracking: expected an abort within seconds", result);
        return `aborted after ${Math.round(elapsed)} ms`;
      },
    },
    {
      id: "web-fetch-html",
      title: `web_fetch of a ${Math.round(scale.htmlChars / 1000)} KB HTML page`,
      run: () => call("web_fetch", { url: `${server.origin}/page.html` }),
      check: async (result) => {
        const data = result as { title?: string; content: string };
        if (
          data.title !== "Big page" ||
          !data.content.includes("| k | v |") ||
          !data.content.includes("[a link](")
        )
          fail("web_fetch: expected the page as markdown", data.content.slice(0, 200));
        return `${data.content.length} characters of markdown`;
      },
    },
  ];

  return {
    world,
    session,
    loads,
    async warm() {
      await call("flood_read", { n: 2, path: "big.txt" });
      await call("flood_shell", { n: 2 });
      await call("flood_fetch", { n: 2, url: `${server.origin}/mb` });
      await call("read", { path: "big.txt", limit: 1 });
      await call("grep", { pattern: "zzz", path: "big.txt" });
    },
    async cleanup() {
      await world.cleanup();
      await server.close();
    },
  };
}
