import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxProbe } from "../sandbox/sandbox-availability.ts";
import { doctor } from "./doctor.ts";

let root: string;
let home: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "lathe-doctor-"));
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-doctor-home-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const machine = (overrides: Partial<SandboxProbe>): SandboxProbe => ({
  platform: "linux",
  dependencies: () => ({ errors: [], warnings: [] }),
  trial: async () => undefined,
  ...overrides,
});

describe("doctor: which walls stand, and what is missing", () => {
  it("is healthy with the sandbox active and the toolchain loading", async () => {
    const report = await doctor({ root, latheHome: home, probe: machine({}) });
    expect(report.walls.policy.active).toBe(true);
    expect(report.walls.sandbox).toMatchObject({
      active: true,
      mechanism: "bubblewrap",
      enabledInSettings: true,
    });
    expect(report.checks.map((c) => [c.name, c.ok])).toEqual([
      ["Node 24 or newer", true],
      ["better-sqlite3 (sessions and the audit trail)", true],
      ["node-pty (bash)", true],
      ["isolated-vm (plugins)", true],
      ["ripgrep (the sandbox's scan for protected files)", true],
    ]);
    expect(report.healthy).toBe(true);
  });

  it.each([
    ["the user's", (r: string, h: string) => path.join(h, "settings.json")],
    ["the project's", (r: string) => path.join(r, ".lathe", "settings.json")],
  ])("goes on past %s settings file it cannot read, and names it as the problem", async (_, fileOf) => {
    const file = fileOf(root, home);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "{bad");
    const report = await doctor({ root, latheHome: home, probe: machine({}) });
    expect(report.healthy).toBe(false);
    expect(report.settings).toMatchObject({ file, problem: expect.stringMatching(/not valid JSON/) });
    expect(report.settings?.problem).toContain(file);
    // the rest of the diagnosis is still there, under default settings
    expect(report.checks.map((c) => c.name)).toContain("node-pty (bash)");
    expect(report.walls.sandbox).toMatchObject({ active: true, enabledInSettings: true });
  });

  it("is not healthy when the machine cannot run the sandbox, and gives the fix", async () => {
    const report = await doctor({
      root,
      latheHome: home,
      probe: machine({
        dependencies: () => ({ errors: ["bubblewrap (bwrap) not installed"], warnings: [] }),
      }),
    });
    expect(report.healthy).toBe(false);
    expect(report.walls.sandbox).toMatchObject({
      active: false,
      reason: expect.stringMatching(/bubblewrap \(bwrap\) not installed/),
      fix: expect.stringMatching(/apt-get install bubblewrap socat ripgrep/),
    });
  });

  it("reports a sandbox turned off in settings without counting it as missing", async () => {
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ sandbox: { enabled: false } }));
    const report = await doctor({ root, latheHome: home, probe: machine({}) });
    expect(report.walls.sandbox).toMatchObject({
      active: false,
      enabledInSettings: false,
      machine: { active: true },
      reason: expect.stringMatching(/turned off/),
    });
    expect(report.healthy).toBe(true);
  });
});

describe.skipIf(process.platform === "win32")("doctor: the PATH stdio MCP servers start with", () => {
  const NAME = "PATH for stdio MCP servers (your login shell's)";
  async function withServer(): Promise<void> {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ mcpServers: { files: { command: "npx", args: ["-y", "some-server"] } } }),
    );
  }
  async function shell(body: string): Promise<string> {
    const file = path.join(home, "login-sh");
    await writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  }
  const run = (SHELL: string) =>
    doctor({ root, latheHome: home, probe: machine({}), env: { HOME: home, PATH: "/usr/bin:/bin", SHELL } });

  it("is not reported without a stdio MCP server", async () => {
    const report = await run(await shell('exec /bin/sh -c "$2"'));
    expect(report.checks.map((c) => c.name)).not.toContain(NAME);
  });

  it("says it asked the login shell, then that the answer is kept, and how old", async () => {
    await withServer();
    const SHELL = await shell('exec /bin/sh -c "$2"');
    const first = (await run(SHELL)).checks.find((c) => c.name === NAME);
    expect(first).toMatchObject({ ok: true, required: false });
    expect(first?.detail).toMatch(new RegExp(`^${escape(SHELL)} -l, asked now \\(it took \\d+ ms\\)$`));
    const second = (await run(SHELL)).checks.find((c) => c.name === NAME);
    expect(second?.detail).toMatch(/, kept from less than a minute ago \(it took \d+ ms\)$/);
  });

  it("names a login shell that fails, with the fix, without counting it as missing", async () => {
    await withServer();
    const report = await run(await shell("exit 3"));
    const check = report.checks.find((c) => c.name === NAME);
    expect(check).toMatchObject({ ok: false, required: false });
    expect(check?.detail).toMatch(
      /-l it exited with 3 \(asked now\): servers start with Lathe's own PATH; asked again in 10 min/,
    );
    expect(check?.fix).toContain(path.join(home, "cache", "login-shell-path.json"));
    expect(report.healthy).toBe(true);
  });
});

describe("doctor: which model lathe run would use", () => {
  // On a fresh machine doctor said "Healthy" and nothing of models, while `lathe run hi` then
  // stopped with "No model chosen" (exit 2).
  const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
  const MODEL = path.join(REPO, "..", "shared", "models", "llama-2-tiny-random.gguf");
  const haveModel = existsSync(MODEL);
  if (!haveModel) console.warn(`doctor's GGUF rows skipped: ${MODEL} is missing.`);

  let servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    servers = [];
  });

  /** A loopback server that lists `models` at /v1/models, as Ollama does; its base URL. */
  async function modelServer(models: string[]): Promise<string> {
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/v1/models") res.end(JSON.stringify({ data: models.map((id) => ({ id })) }));
      else res.writeHead(404).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  /** A loopback address nothing listens on. */
  async function closedPort(): Promise<string> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return `http://127.0.0.1:${port}/v1`;
  }

  /** Settings whose local servers are where the test says (never the usual ports of this machine). */
  async function settings(extra: Record<string, unknown>, ollama?: string): Promise<void> {
    const providers: Record<string, { baseURL: string }> = {};
    for (const name of ["ollama", "lmstudio", "llamacpp", "vllm"])
      providers[name] = { baseURL: await closedPort() };
    if (ollama !== undefined) providers["ollama"] = { baseURL: ollama };
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ providers, ...extra }));
  }

  const check = () => doctor({ root, latheHome: home, probe: machine({}), env: {} });

  it("says none is chosen and how to get one, healthy as before", async () => {
    await settings({});
    const report = await check();
    expect(report.healthy).toBe(true);
    expect(report.model).toMatchObject({
      ready: false,
      chosen: null,
      gguf: { folder: path.join(home, "models"), files: [] },
    });
    expect(report.model.fix).toContain(`put a .gguf model file in ${path.join(home, "models")}`);
    expect(report.model.fix).toContain(`set "defaultModel" in ${path.join(home, "settings.json")}`);
    expect(report.model.servers.map((s) => [s.provider, s.state])).toEqual([
      ["ollama", "stopped"],
      ["lmstudio", "stopped"],
      ["llamacpp", "stopped"],
      ["vllm", "stopped"],
    ]);
  });

  it.skipIf(!haveModel)(
    "names a GGUF file of the models folder to choose, and a truncated one as such",
    async () => {
      await settings({});
      await mkdir(path.join(home, "models"));
      await symlink(MODEL, path.join(home, "models", "tiny.gguf"));
      await writeFile(path.join(home, "models", "cut.gguf"), (await readFile(MODEL)).subarray(0, 10));
      // an unfinished download: the header whole, the tensor data cut in the middle
      const whole = await readFile(MODEL);
      await writeFile(
        path.join(home, "models", "half.gguf"),
        whole.subarray(0, Math.floor(whole.length * 0.6)),
      );
      const report = await check();
      const tiny = `gguf:${path.join(home, "models", "tiny.gguf")}`;
      expect(report.model.fix).toMatch(
        new RegExp(`^pass --model ${escape(tiny)} to lathe run, or set "defaultModel": "${escape(tiny)}" in`),
      );
      expect(report.model.gguf.files).toEqual([
        { id: `gguf:${path.join(home, "models", "cut.gguf")}`, problem: expect.stringMatching(/truncated/) },
        { id: `gguf:${path.join(home, "models", "half.gguf")}`, problem: expect.stringMatching(/truncated/) },
        { id: tiny },
      ]);
    },
  );

  it.skipIf(!haveModel)(
    "names the model defaultModel chooses, ready when its file is a whole GGUF",
    async () => {
      await settings({ defaultModel: `gguf:${MODEL}` });
      expect((await check()).model).toMatchObject({
        ready: true,
        chosen: { spec: `gguf:${MODEL}`, source: `defaultModel in ${path.join(home, "settings.json")}` },
      });
    },
  );

  it("says what stops the chosen model without loading it: a missing file, a model the server lacks, a key not set", async () => {
    const missing = path.join(root, "gone.gguf");
    await settings({ defaultModel: `gguf:${missing}` });
    expect((await check()).model.chosen?.problem).toMatch(/^No GGUF file at .*gone\.gguf/);

    await settings({ defaultModel: "ollama:llama3.2" }, await modelServer(["qwen2.5:7b"]));
    const lacking = (await check()).model;
    expect(lacking).toMatchObject({ ready: false, chosen: { spec: "ollama:llama3.2" } });
    expect(lacking.chosen?.problem).toMatch(
      /does not have the model "llama3\.2"\. It has: qwen2\.5:7b; download it with `ollama pull llama3\.2`/,
    );
    expect(lacking.fix).toContain("--model ollama:qwen2.5:7b");
    expect(lacking.servers[0]).toMatchObject({
      provider: "ollama",
      state: "running",
      models: ["ollama:qwen2.5:7b"],
    });

    await settings({ defaultModel: "anthropic:claude-sonnet-4-5" });
    expect((await check()).model.chosen?.problem).toBe("Anthropic needs its key: set ANTHROPIC_API_KEY.");

    await settings({ defaultModel: "acme:x" });
    expect((await check()).model.chosen?.problem).toMatch(
      /^There is no model provider "acme"\. Use one of: anthropic, gguf/,
    );
  });

  // `ollama pull llama3.2` lists it as llama3.2:latest, and lathe run takes either name.
  it.each([
    { listed: ["llama3.2:latest"], spec: "ollama:llama3.2", problem: undefined },
    { listed: ["llama3.2:latest"], spec: "ollama:llama3.2:latest", problem: undefined },
    { listed: ["llama3.2"], spec: "ollama:llama3.2", problem: undefined },
    {
      listed: [],
      spec: "ollama:llama3.2",
      problem: /has no models yet, so not "llama3\.2": download it with `ollama pull llama3\.2`/,
    },
    {
      listed: ["llama3.2:latest"],
      spec: "ollama:llama3.2:1b",
      problem: /does not have the model "llama3\.2:1b"\. It has: llama3\.2:latest/,
    },
  ])(
    "$spec with Ollama listing $listed: a problem only when lathe run would fail",
    async ({ listed, spec, problem }) => {
      await settings({ defaultModel: spec }, await modelServer(listed));
      const model = (await check()).model;
      if (problem === undefined) {
        expect(model.chosen?.problem).toBeUndefined();
        expect(model.ready).toBe(true);
      } else {
        expect(model.chosen?.problem).toMatch(problem);
        expect(model.ready).toBe(false);
      }
    },
  );

  it("asks no server that is not on this machine", async () => {
    await settings({}, "http://192.0.2.1:11434/v1"); // TEST-NET-1: never routed
    const report = await check();
    expect(report.model.servers.find((s) => s.provider === "ollama")).toMatchObject({
      state: "not checked",
      message: expect.stringContaining("is not on this machine"),
    });
  });

  it("names the default agent's model, from its front matter", async () => {
    await settings({ defaultModel: "ollama:not-this" }, await modelServer(["qwen2.5:7b"]));
    await mkdir(path.join(home, "agents"));
    const agentFile = path.join(home, "agents", "default.md");
    await writeFile(agentFile, "---\ndescription: Mine\nmodel: ollama:qwen2.5:7b\n---\nWork.\n");
    expect((await check()).model).toMatchObject({
      ready: true,
      chosen: { spec: "ollama:qwen2.5:7b", source: `model: in ${agentFile}` },
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
