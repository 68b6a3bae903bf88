import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { useCliWorld } from "./support/cli-world.ts";
import { collected, envelopeOf, LATHE_BIN as LATHE, PACKAGE_ROOT, type Run } from "./support/lathe-cli.ts";

const VERSION = (
  JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }
).version;
const BUILTINS = ["edit", "glob", "grep", "read", "write"];

const world = useCliWorld("lathe-cli-");

function lathe(
  args: string[],
  options: { input?: string; cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<Run> {
  return world.lathe(args, options);
}

describe("lathe --version and --help", () => {
  it("prints the package version and nothing else", async () => {
    const run = await lathe(["--version"]);
    expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("lists every command in the top-level help", async () => {
    const run = await lathe(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    for (const command of ["tools", "call", "batch", "session", "serve", "plugin"])
      expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    expect(run.stdout).toContain("LATHE_HOME");
  });

  it.each([
    [
      ["call", "--help"],
      ["--session <id>", "--mode <mode>", "--root <dir>", "<tool-id>", "--verbose"],
    ],
    [
      ["plugin", "check", "--help"],
      ["<folder>", "--json"],
    ],
    [
      ["tools", "--help"],
      ["--json", "--root <dir>"],
    ],
    [
      ["session", "close", "--help"],
      ["<id>", "--root <dir>"],
    ],
    [
      ["serve", "--help"],
      ["--port <n>", "--root <dir>"],
    ],
  ])("`lathe %s` documents the command's flags", async (args, flags) => {
    const run = await lathe(args);
    expect(run.code).toBe(0);
    for (const flag of flags) expect(run.stdout).toContain(flag);
  });
});

describe("lathe serve on a port already in use", () => {
  const built = existsSync(path.join(PACKAGE_ROOT, "out/renderer/index.html"));
  it.skipIf(!built)(
    "exits 1 saying the port is taken and what to pass instead, not Node's errno (skipped without `npm run build`)",
    async () => {
      const squatter = net.createServer();
      await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
      const { port } = squatter.address() as AddressInfo;
      try {
        const run = await lathe(["serve", "--port", String(port)]);
        expect(run).toMatchObject({
          code: 1,
          stdout: "",
          stderr: `error: Port ${port} on 127.0.0.1 is already in use (by another program, or another lathe serve). Pass another --port, or leave --port out to get any free port.\n`,
        });
      } finally {
        await new Promise((resolve) => squatter.close(resolve));
      }
    },
  );
});

describe("usage errors exit 2 and name the problem on stderr", () => {
  it.each([
    { args: ["--bogus"], says: "unknown option '--bogus'" },
    { args: ["tools", "--frob"], says: "unknown option '--frob'" },
    { args: ["call", "read", "{}", "--nope"], says: "unknown option '--nope'" },
    { args: ["frobnicate"], says: "unknown command 'frobnicate'" },
    // Only the named command is built for a command line; a word that names none gets them all.
    { args: ["tool"], says: "(Did you mean tools?)" },
    { args: ["rewnd", "c1"], says: "(Did you mean rewind?)" },
    { args: ["session", "reopen", "x"], says: "unknown command 'reopen'" },
    { args: ["call"], says: "missing required argument 'tool-id'" },
    { args: ["session", "close"], says: "missing required argument 'id'" },
    { args: ["call", "read", "{}", "extra"], says: "too many arguments" },
    { args: ["call", "read", "{}", "--mode", "reckless"], says: "Allowed choices are ask, allowlist, yolo" },
    { args: ["call", "read", "{}", "--mode"], says: "option '--mode <mode>' argument missing" },
    { args: ["tools", "--root", "/definitely/not/here"], says: "/definitely/not/here does not exist" },
    { args: ["serve", "--port", "http"], says: "Use a whole number from 0 to 65535" },
    { args: ["serve", "--port", "70000"], says: "Use a whole number from 0 to 65535" },
    // Found wrong by the command itself rather than by the option parser: read the same way.
    { args: ["run", "--replay"], says: "--replay needs --resume <id>" },
    { args: ["run", "hi", "--model", "nope:m"], says: 'There is no model provider "nope"' },
    { args: ["run", "   "], says: "The prompt is empty" },
    // A malformed session id, wherever one is given (it would name a folder in LATHE_HOME).
    ...(
      [
        [["call", "read", "{}", "--session", "../escape"], "../escape"],
        [["batch", "--session", "a b"], "a b"],
        [["run", "hi", "--model", "ollama:m", "--resume", "bad id!"], "bad id!"],
        [["session", "close", "../escape"], "../escape"],
        [["session", "rename", "_x", "title"], "_x"],
        [["checkpoints", "--session", "a/b"], "a/b"],
        [["rewind", "--session", ".hidden", "--before", "0"], ".hidden"],
      ] as const
    ).map(([args, id]) => ({
      args: [...args],
      says: `Session id "${id}" is invalid: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
    })),
  ])("lathe $args", async ({ args, says }) => {
    const run = await lathe(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(says);
    // docs/cli.md: one line saying the problem, then a second pointing to --help.
    expect(run.stderr).toMatch(
      /^error: .*\n(?:.*\n)?\(run "lathe --help" or "lathe <command> --help" for usage\)\n$/,
    );
  });

  it("refuses a --root that is a file, not a folder", async () => {
    await writeFile(path.join(world.root, "plain.txt"), "x");
    const run = await lathe([
      "call",
      "read",
      '{"path":"plain.txt"}',
      "--root",
      path.join(world.root, "plain.txt"),
    ]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("is not a folder");
  });

  it("with no command at all, shows the help on stderr", async () => {
    const run = await lathe([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("Usage: lathe");
  });
});

describe("lathe tools", () => {
  it("--json lists the built-in tools with their published contract and origin", async () => {
    const run = await lathe(["tools", "--json"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const tools = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    expect(tools.map((t) => t.id)).toEqual(expect.arrayContaining(BUILTINS));
    for (const tool of tools.filter((t) => BUILTINS.includes(t.id as string))) {
      expect(Object.keys(tool).sort()).toEqual(
        [
          "deferred",
          "description",
          "enabled",
          "gated",
          "id",
          "kind",
          "origin",
          "parameters",
          "readOnly",
          "requires",
          "shadows",
        ].sort(),
      );
      expect(tool.origin).toEqual({ layer: "builtin", kind: "builtin" });
      // A built-in shadows nothing: it is the lowest layer.
      expect(tool.shadows).toEqual([]);
      expect(tool.enabled).toBe(true);
      expect(tool.deferred).toBe(false);
      expect(tool.parameters).toMatchObject({ type: "object" });
    }
    const byId = new Map(tools.map((t) => [t.id, t]));
    expect(byId.get("read")).toMatchObject({ readOnly: true, kind: "read" });
    expect(byId.get("write")).toMatchObject({ readOnly: false, gated: true });
  });

  it("prints a readable table: id, kind, access, origin, description", async () => {
    const run = await lathe(["tools"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+KIND\s+ACCESS\s+ORIGIN\s+SCHEMA\s+DESCRIPTION$/);
    expect(lines.find((l) => l.startsWith("read "))).toMatch(
      /^read\s+read\s+read-only\s+builtin\s+loaded\s+Read a /,
    );
    expect(lines.find((l) => l.startsWith("write "))).toMatch(
      /^write\s+edit\s+mutating\s+builtin\s+loaded\s+\S/,
    );
    expect(lines.length).toBeGreaterThanOrEqual(1 + BUILTINS.length);
  });

  it("says why each deferred tool is deferred, in the table and in --json", async () => {
    const json = await lathe(["tools", "--json"]);
    const tools = JSON.parse(json.stdout) as Array<{ id: string; deferred?: boolean; deferredBy?: string }>;
    const deferred = tools.filter((t) => t.deferred === true);
    // The bundled plugins do not fit beside the built-ins in 10% of the 32k context assumed here.
    expect(deferred.map((t) => t.id)).toEqual(expect.arrayContaining(["word_count"]));
    for (const t of tools) expect(t.deferredBy).toBe(t.deferred === true ? "budget" : undefined);
    const table = await lathe(["tools"]);
    expect(table.stdout).toMatch(
      new RegExp(
        `\\nDeferred \\(${deferred.length}\\): .*tool_search.*\\n  ${deferred
          .map((t) => t.id)
          .join(", ")}: past 10% of a 32768-token context`,
      ),
    );
  });
});

describe("lathe call", () => {
  beforeEach(async () => {
    await writeFile(path.join(world.root, "notes.txt"), "one\ntwo\n");
  });

  it("runs each example of `lathe call --help` as written: every envelope is output (exit 0)", async () => {
    await writeFile(path.join(world.root, "a.txt"), "a\n");
    await writeFile(path.join(world.root, "README.md"), "# r\n");
    const help = (await lathe(["call", "--help"])).stdout;
    const examples = (help.split("Examples:\n")[1] ?? "")
      .split("\n")
      .filter((line) => line.startsWith("  ") && line.includes("lathe call"))
      .map((line) => line.trim());
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const example of examples) {
      // As a person types it in a shell, `lathe` being this checkout's launcher.
      const run = await collected(
        spawn("bash", ["-c", `lathe() { "${process.execPath}" "${LATHE}" "$@"; }\n${example}`], {
          cwd: world.root,
          env: { ...process.env, LATHE_HOME: world.home, LATHE_DAEMON: "off" },
          stdio: ["ignore", "pipe", "pipe"],
        }),
      );
      expect(run.code, `${example}\n${run.stdout}${run.stderr}`).toBe(0);
      for (const line of run.stdout.trimEnd().split("\n"))
        expect((JSON.parse(line) as { type: string }).type, example).toBe("output");
    }
  });

  it("prints one output envelope on one line and exits 0", async () => {
    const run = await lathe(["call", "read", '{"path":"notes.txt"}']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const envelope = envelopeOf(run);
    expect(envelope).toMatchObject({
      type: "output",
      data: { path: "notes.txt", content: "one\ntwo\n", start_line: 1, total_lines: 2 },
    });
    expect(typeof envelope.metadata.duration_ms).toBe("number");
  });

  it("defaults --root to the current directory and resolves a relative --root", async () => {
    await mkdir(path.join(world.root, "sub"));
    await writeFile(path.join(world.root, "sub", "inner.txt"), "inside\n");
    const fromCwd = await lathe(["call", "read", '{"path":"inner.txt"}'], {
      cwd: path.join(world.root, "sub"),
    });
    expect(envelopeOf(fromCwd)).toMatchObject({ type: "output", data: { content: "inside\n" } });
    const relative = await lathe(["call", "read", '{"path":"inner.txt"}', "--root", "sub"], {
      cwd: world.root,
    });
    expect(envelopeOf(relative)).toMatchObject({ type: "output", data: { content: "inside\n" } });
  });

  it("reads the arguments from stdin with -", async () => {
    const run = await lathe(["call", "read", "-"], { input: '{"path":"notes.txt","offset":2}\n' });
    expect(run.code).toBe(0);
    expect(envelopeOf(run)).toMatchObject({ type: "output", data: { content: "two\n", start_line: 2 } });
  });

  it.each([
    { name: "bad JSON", args: ["call", "read", "{path: notes.txt}"], says: /not valid JSON/ },
    { name: "bad JSON on stdin", args: ["call", "read", "-"], input: "{", says: /not valid JSON/ },
    { name: "an unknown tool", args: ["call", "teleport", "{}"], says: /Unknown tool "teleport".*read/ },
    { name: "no arguments ({} misses path)", args: ["call", "read"], says: /path/ },
    { name: "a schema violation", args: ["call", "read", '{"path":"notes.txt","offset":0}'], says: /offset/ },
    {
      name: "a path outside the root",
      args: ["call", "read", '{"path":"../../etc/passwd"}'],
      says: /outside/,
    },
    { name: "a missing file", args: ["call", "read", '{"path":"absent.txt"}'], says: /absent\.txt/ },
  ])("turns $name into an error envelope and exits 1", async ({ args, input, says }) => {
    const run = await lathe(args, input === undefined ? {} : { input });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
    const envelope = envelopeOf(run);
    expect(envelope.type).toBe("error");
    expect(envelope.error_text).toMatch(says);
    expect(envelope.data).toBeUndefined();
  });

  it("accepts --mode ask, allowlist and yolo", async () => {
    for (const mode of ["ask", "allowlist", "yolo"]) {
      const run = await lathe(["call", "read", '{"path":"notes.txt"}', "--mode", mode]);
      expect(run.code).toBe(0);
      expect(envelopeOf(run).type).toBe("output");
    }
  });

  it("leaves nothing behind in LATHE_HOME after an ephemeral call", async () => {
    const big = `${"x".repeat(99)}\n`.repeat(3000); // 300 KB: past read's 200 KB cap, so a sidecar is written
    await writeFile(path.join(world.root, "big.txt"), big);
    const run = await lathe(["call", "read", '{"path":"big.txt"}']);
    expect(envelopeOf(run).metadata.truncated).toBe(true);
    const sessions = path.join(world.home, "sessions");
    expect(existsSync(sessions) ? await readdir(sessions) : []).toEqual([]);
  });
  it("still prints the envelope when the runtime fails behind it, and reports that failure on stderr", async () => {
    // LATHE_HOME/sessions is a file, so the sidecar of a truncated read cannot be written.
    await writeFile(path.join(world.home, "sessions"), "");
    await writeFile(path.join(world.root, "big.txt"), `${"z".repeat(99)}\n`.repeat(3000));
    const run = await lathe(["call", "read", '{"path":"big.txt"}']);
    expect(run.code).toBe(0);
    const envelope = envelopeOf(run);
    expect(envelope).toMatchObject({ type: "output", metadata: { truncated: true } });
    expect(envelope.metadata.output_path).toBeUndefined();
    expect(run.stderr).toMatch(/^internal error in tool read \(session s-[^)]+\): ENOTDIR/m);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});

describe("lathe call --session and lathe session close", () => {
  beforeEach(async () => {
    await writeFile(path.join(world.root, "notes.txt"), "before\n");
  });

  it("without a session, overwriting an existing file fails: it was not read first", async () => {
    await lathe(["call", "read", '{"path":"notes.txt"}']);
    const run = await lathe(["call", "write", '{"path":"notes.txt","content":"after\\n"}', "--mode", "yolo"]);
    expect(run.code).toBe(1);
    expect(envelopeOf(run).error_text).toMatch(
      /has not been read in this session.*Call read on notes\.txt first/,
    );
    expect(await readFile(path.join(world.root, "notes.txt"), "utf8")).toBe("before\n");
  });

  it("carries the read-state from one process to the next, until the session is closed", async () => {
    // A user rule allows this write, so the headless CLI needs no approval for it.
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({ permissions: [{ permission: "write", pattern: "notes.txt", action: "allow" }] }),
    );
    const read = await lathe(["call", "read", '{"path":"notes.txt"}', "--session", "s1"]);
    expect(envelopeOf(read).type).toBe("output");

    const write = await lathe([
      "call",
      "write",
      '{"path":"notes.txt","content":"after\\n"}',
      "--session",
      "s1",
    ]);
    expect(write.code).toBe(0);
    expect(envelopeOf(write)).toMatchObject({ type: "output", data: { path: "notes.txt" } });
    expect(await readFile(path.join(world.root, "notes.txt"), "utf8")).toBe("after\n");

    const close = await lathe(["session", "close", "s1"]);
    expect(close).toMatchObject({ code: 0, stderr: "" });
    expect(close.stdout).toContain("s1");

    // The session is gone: the same id starts afresh, with no memory of the read.
    const again = await lathe([
      "call",
      "write",
      '{"path":"notes.txt","content":"again\\n"}',
      "--session",
      "s1",
    ]);
    expect(again.code).toBe(1);
    expect(envelopeOf(again).error_text).toMatch(/has not been read in this session/);
    expect((await lathe(["session", "close", "s1"])).code).toBe(0);
  });

  it("keeps a truncated call's sidecar until `session close` removes the session's folder", async () => {
    await writeFile(path.join(world.root, "big.txt"), `${"y".repeat(99)}\n`.repeat(3000));
    const run = await lathe(["call", "read", '{"path":"big.txt"}', "--session", "keep"]);
    const { metadata } = envelopeOf(run);
    expect(metadata.truncated).toBe(true);
    const sidecar = metadata.output_path as string;
    expect(sidecar.startsWith(path.join(world.home, "sessions", "keep") + path.sep)).toBe(true);
    expect((await readFile(sidecar, "utf8")).length).toBe(300_000);

    const close = await lathe(["session", "close", "keep"]);
    expect(close.code).toBe(0);
    expect(existsSync(sidecar)).toBe(false);
    expect(existsSync(path.join(world.home, "sessions", "keep"))).toBe(false);
  });

  it("refuses to close a session that is not open: exit 1, a message, no stack trace", async () => {
    const run = await lathe(["session", "close", "never-opened"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^error: There is no session "never-opened" in /);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it("prints the stack trace of a runtime error when LATHE_DEBUG=1", async () => {
    const run = await lathe(["session", "close", "never-opened"], { env: { LATHE_DEBUG: "1" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('There is no session "never-opened"');
    expect(run.stderr).toMatch(/^\s+at /m);
  });

  it("refuses a session opened for another folder", async () => {
    const other = await world.folder("other");
    expect((await lathe(["call", "read", '{"path":"notes.txt"}', "--session", "mine"])).code).toBe(0);
    const run = await lathe(["call", "glob", '{"pattern":"*"}', "--session", "mine", "--root", other]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("belongs to the folder");
  });
});

describe("lathe serve", () => {
  // Which half runs depends on whether `npm run build` has produced out/renderer; both are checked.
  const built = existsSync(path.join(PACKAGE_ROOT, "out", "renderer", "index.html"));

  it(`${built ? "prints one line with the tokened URL and exits 0 on SIGTERM" : "says how to build the app when out/renderer is missing"}`, async () => {
    if (!built) {
      const run = await lathe(["serve"]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("The app is not built: run `npm run build` first.");
      return;
    }
    const env: NodeJS.ProcessEnv = { ...process.env, LATHE_HOME: world.home };
    const child = spawn(process.execPath, [LATHE, "serve", "--root", world.root], { env });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      let stdout = "";
      child.stdout.setEncoding("utf8");
      const line = await new Promise<string>((resolve, reject) => {
        child.on("error", reject);
        child.on("exit", (code) => reject(new Error(`lathe serve exited early with ${code}`)));
        child.stdout.on("data", (chunk: string) => {
          stdout += chunk;
          if (stdout.includes("\n")) resolve(stdout);
        });
      });
      expect(line).toMatch(/^lathe serve: http:\/\/127\.0\.0\.1:\d+\/\S*\?token=\S+\n$/);
      const url = line.slice("lathe serve: ".length).trim();
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(new URL("/", url))).status).toBe(401);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
