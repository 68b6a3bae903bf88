import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultBundledDir } from "./plugin-discovery.ts";
import { checkPluginFolder } from "./plugin-folder-check.ts";
import { openPluginWorld, type PluginWorld } from "../../../../test/support/plugin-test-kit.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";

let world: PluginWorld | undefined;
let server: Server | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function bundled(): Promise<PluginWorld> {
  world = await openPluginWorld({ bundledDir: defaultBundledDir() });
  return world;
}

describe("the bundled example plugins", () => {
  it("all load from plugins/ with a bundled origin and no errors", async () => {
    const w = await bundled();
    expect(w.manager.status().map((s) => [s.name, s.state, s.reason ?? null])).toEqual([
      ["git_recent", "active", null],
      ["ollama_models", "active", null],
      ["word_count", "active", null],
    ]);
    expect(w.engine.registry.get("word_count")?.origin).toEqual({
      layer: "bundled",
      kind: "plugin",
      name: "word_count",
    });
    expect(w.engine.registry.get("ollama_models")?.tool.description).toContain("ollama serve");
  });

  it("pass `lathe plugin check` without a problem: they are what authors copy", async () => {
    const w = await bundled();
    for (const status of w.manager.status()) {
      const report = await checkPluginFolder(status.dir, { latheHome: w.latheHome });
      expect({ name: status.name, problems: report.problems }).toEqual({ name: status.name, problems: [] });
      expect(report).toMatchObject({ ok: true, layer: "bundled" });
    }
  });

  it("word_count counts files and the files of a folder", async () => {
    const w = await bundled();
    await mkdir(path.join(w.root, "docs"));
    await writeFile(path.join(w.root, "docs", "a.md"), "one two three\nfour\n");
    await writeFile(path.join(w.root, "docs", "b.md"), "héllo wörld");
    await writeFile(path.join(w.root, "README"), "");
    const session = await w.session("ask");
    expect(outputOf(await session.call("word_count", { paths: ["README"], folder: "docs" }))).toEqual({
      files: [
        { path: "README", lines: 0, words: 0, chars: 0 },
        { path: "docs/a.md", lines: 2, words: 4, chars: 19 },
        { path: "docs/b.md", lines: 1, words: 2, chars: 11 },
      ],
      total: { files: 3, lines: 3, words: 6, chars: 30 },
    });
    expect(w.logs.map((l) => [l.plugin, l.line])).toEqual([["word_count", "counted 3 file(s)"]]);
    expect(errorOf(await session.call("word_count", {}))).toMatch(/Nothing to count/);
    expect(errorOf(await session.call("word_count", { paths: ["../../etc/passwd"] }))).toMatch(
      /Access denied/,
    );
  });

  it("ollama_models lists the models of an Ollama at 127.0.0.1 (a loopback stand-in)", async () => {
    const requests: string[] = [];
    server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          models: [
            {
              name: "llama3.2:3b",
              model: "llama3.2:3b",
              modified_at: "2025-01-02T03:04:05Z",
              size: 2019393189,
              digest: "a80c4f17acd5",
              details: {
                format: "gguf",
                family: "llama",
                families: ["llama"],
                parameter_size: "3.2B",
                quantization_level: "Q4_K_M",
              },
            },
            { name: "tiny:latest", size: 1048576 },
          ],
        }),
      );
    });
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const w = await bundled();
    const session = await w.session("ask");
    expect(outputOf(await session.call("ollama_models", { port }))).toEqual({
      models: [
        {
          name: "llama3.2:3b",
          size_mb: 1926,
          modified_at: "2025-01-02T03:04:05Z",
          family: "llama",
          parameter_size: "3.2B",
          quantization: "Q4_K_M",
        },
        {
          name: "tiny:latest",
          size_mb: 1,
          modified_at: null,
          family: null,
          parameter_size: null,
          quantization: null,
        },
      ],
    });
    expect(requests).toEqual(["GET /api/tags"]);
  });

  it("ollama_models says how to start Ollama when nothing answers", async () => {
    server = createServer();
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server?.close(r));
    server = undefined;
    const w = await bundled();
    const session = await w.session("ask");
    expect(errorOf(await session.call("ollama_models", { port }))).toMatch(
      /ECONNREFUSED.*Start it with `ollama serve`/,
    );
  });

  it("git_recent shows the newest commits of the workspace's repository", async () => {
    const w = await bundled();
    const git = (...args: string[]) =>
      execFileSync(
        "git",
        ["-c", "user.name=Test", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args],
        {
          cwd: w.root,
          stdio: "pipe",
        },
      );
    git("init", "-q");
    for (const subject of ["first", "second", "third"]) {
      await writeFile(path.join(w.root, "f.txt"), subject);
      git("add", "f.txt");
      git("commit", "-q", "-m", subject);
    }
    const session = await w.session("ask");
    const { commits } = outputOf<{ commits: { hash: string; subject: string }[] }>(
      await session.call("git_recent", { count: 2 }),
    );
    expect(commits.map((c) => c.subject)).toEqual(["third", "second"]);
    expect(commits.every((c) => /^[0-9a-f]{7,}$/.test(c.hash))).toBe(true);
    expect(errorOf(await session.call("git_recent", { count: 1000 }))).toMatch(/"count" must be <= 100/);
  });

  it("git_recent reports git's own error outside a repository", async () => {
    const w = await bundled();
    const session = await w.session("ask");
    expect(errorOf(await session.call("git_recent", {}))).toMatch(
      /git log failed \(exit code 128\): fatal: not a git repository/,
    );
  });
});
