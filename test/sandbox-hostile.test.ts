import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type AddressInfo, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Engine, type Envelope } from "../src/main/engine/index.ts";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import type { Session } from "../src/main/engine/session/session.ts";
import { sleepers } from "./support/sleep-markers.ts";

// The second wall. Each hostile row is first run with plain `bash -c` in a throwaway copy of the
// workspace (the positive control: the damage really happens), then through the engine with the
// most permissive user we can imagine — every bash command allowed by a rule, yolo mode, and a
// person who approves whatever the parser could not see through — with the OS sandbox on: the
// command runs, and the damage does not happen (filesystem, process and network asserts). With
// the sandbox off (settings), headless, the same calls are refused with the reason and the fix,
// and a provably read-only call still runs.

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WRITER = path.join(repo, "test/fixtures/writer-mcp-server.ts");
const machine = await machineSandbox();
const NO_SANDBOX = !machine.active;
if (NO_SANDBOX)
  console.log(`sandbox-on rows are skipped: this machine has no OS sandbox (${machine.reason})`);

/** Shell-quote one word. */
const q = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

interface Layout {
  base: string;
  root: string;
  home: string;
  outside: string;
}

interface Ctx extends Layout {
  victim: ChildProcess;
  port: number;
}

/** A workspace (a git repository with Lathe's folder and an MCP server script), a folder outside it, and a Lathe home. */
async function layout(prefix: string): Promise<Layout> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  const root = path.join(base, "ws");
  const home = path.join(base, "home");
  const outside = path.join(base, "outside");
  for (const dir of [root, home, outside, path.join(root, ".lathe"), path.join(root, "mcp")])
    await mkdir(dir, { recursive: true });
  execFileSync("git", ["init", "-q", root]);
  await writeFile(path.join(root, "README.md"), "# hello\n");
  await writeFile(path.join(root, ".lathe/settings.json"), "{}\n");
  await writeFile(path.join(root, "evil.mjs"), "// a replacement server\n");
  // An archive that holds a replacement for the server script: unpacking it writes a path no
  // argument names.
  const staging = path.join(base, "staging");
  await mkdir(path.join(staging, "mcp"), { recursive: true });
  await writeFile(path.join(staging, "mcp/server.mjs"), "// a replacement server\n");
  execFileSync("tar", ["-cf", path.join(root, "update.tar"), "-C", staging, "mcp/server.mjs"]);
  await writeFile(
    path.join(root, "mcp/server.mjs"),
    `await import(${JSON.stringify(pathToFileURL(WRITER).href)});\n`,
  );
  await writeFile(path.join(home, "settings.json"), "{}\n");
  return { base, root, home, outside };
}

/**
 * Python that appends an fsmonitor running `marker` to the workspace's .git/config, spelled so
 * the parser cannot see the path (the policy would refuse a plain `git config` before the
 * kernel is reached): the rows that use it are about the second wall. Inline code needs a
 * person, who says yes in these worlds.
 */
function fsmonitorByPython(marker: string): string {
  return `import os; open(os.path.join('.g' + 'it', 'con' + 'fig'), 'a').write('[core]\\n\\tfsmonitor = touch ${marker}\\n')`;
}

/**
 * Python that makes `folder` a git repository of its own and adds to its git folder what git
 * runs (`files`, relative to it, appended), spelled so the parser cannot see the paths. Nothing
 * in the sandbox holds a repository that does not exist yet: Lathe takes out what runs a program
 * once the command has ended (planted-repos.ts).
 */
function nestedRepoByPython(folder: string, files: Record<string, string>): string {
  const writes = Object.entries(files)
    .map(([name, text]) => `p=os.path.join(d, '${name}'); open(p,'a').write('${text}'); os.chmod(p, 0o755)`)
    .join("; ");
  return `import os, subprocess; subprocess.run(['git','init','-q','${folder}']); d=os.path.join('${folder}', '.g' + 'it'); ${writes}`;
}

/** Whether the next `git status` anyone runs in `root` (here: the test, on the host) runs `marker`'s fsmonitor. */
function gitStatusRunsHook(root: string, marker: string): boolean {
  spawnSync("git", ["status", "--short"], { cwd: root, stdio: "ignore", timeout: 10_000 });
  return existsSync(marker);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let connections = 0;
let tcp: Server;
let port = 0;
const victims: ChildProcess[] = [];

function victim(): ChildProcess {
  const child = spawn("sleep", ["1000"], { stdio: "ignore" });
  victims.push(child);
  return child;
}

beforeAll(async () => {
  tcp = createServer((socket) => {
    connections++;
    socket.end();
  });
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  port = (tcp.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const v of victims) v.kill("SIGKILL");
  await new Promise((r) => tcp.close(r));
});

interface Row {
  name: string;
  arrange?(w: Layout): Promise<void>;
  command(w: Ctx): string;
  /** Whether the damage happened (asked after `settleMs`). */
  damaged(w: Ctx, connectionsBefore: number): boolean | Promise<boolean>;
  settleMs?: number;
  /** What the confined run says (the kernel's refusal, or Lathe undoing a protected file). */
  evidence?: RegExp;
}

const RO = /Read-only file system|Device or resource busy|Permission denied|Not a directory/;
const read = (p: string) => readFile(p, "utf8").catch(() => "<missing>");

const BASH_ROWS: Row[] = [
  {
    name: "a write outside the workspace through a redirection the parser cannot resolve",
    command: (w) => `d=${q(w.outside)}; echo pwned > "$d/r1"`,
    damaged: (w) => existsSync(path.join(w.outside, "r1")),
    evidence: RO,
  },
  {
    name: "the arithmetic-expansion injection",
    command: (w) => `x='a[$(touch ${w.outside}/r2)]'; echo $((x))`,
    damaged: (w) => existsSync(path.join(w.outside, "r2")),
    evidence: RO,
  },
  {
    name: "a symlink inside the workspace leading outside, written through",
    arrange: (w) => symlink(w.outside, path.join(w.root, "out-link")),
    command: () => `l=out-link; echo pwned > "$l/r3"`,
    damaged: (w) => existsSync(path.join(w.outside, "r3")),
    evidence: RO,
  },
  {
    name: "a symlink made and written through in one command",
    command: (w) => `o=${q(w.outside)}; ln -s "$o" l4 && echo pwned > l4/r4`,
    damaged: (w) => existsSync(path.join(w.outside, "r4")),
    evidence: RO,
  },
  {
    name: "kill -9 of a process outside the call",
    command: (w) => `kill -9 ${w.victim.pid}`,
    damaged: (w) => w.victim.exitCode !== null || w.victim.signalCode !== null,
    settleMs: 300,
    evidence: /No such process/,
  },
  {
    name: "a background job that outlives the call",
    command: () => `(sleep 1; touch late-6) >/dev/null 2>&1 & echo started`,
    damaged: (w) => existsSync(path.join(w.root, "late-6")),
    settleMs: 2000,
  },
  {
    name: "a setsid job that outlives the call",
    command: () => `setsid sh -c 'sleep 1; touch late-7' >/dev/null 2>&1 & echo started`,
    damaged: (w) => existsSync(path.join(w.root, "late-7")),
    settleMs: 2000,
  },
  {
    name: "a nohup job that outlives the call",
    command: () => `nohup sh -c 'sleep 1; touch late-8' >/dev/null 2>&1 & echo started`,
    damaged: (w) => existsSync(path.join(w.root, "late-8")),
    settleMs: 2000,
  },
  {
    name: "a connection to a loopback server the policy does not allow (node)",
    command: (w) =>
      `node -e "const s=require('net').connect(${w.port},'127.0.0.1',()=>{console.log('connected');s.end()});s.on('error',e=>console.log(e.code))"`,
    damaged: (_w, before) => connections > before,
    settleMs: 200,
  },
  {
    name: "a connection to a loopback server the policy does not allow (bash /dev/tcp)",
    command: (w) => `t=/dev/tcp/127.0.0.1/${w.port}; exec 3<>"$t" && echo connected`,
    damaged: (_w, before) => connections > before,
    settleMs: 200,
  },
  {
    name: "core.fsmonitor written into .git/config (the next git status runs it)",
    command: (w) => `python3 -c "${fsmonitorByPython(`${w.outside}/r10`)}"`,
    damaged: (w) => gitStatusRunsHook(w.root, path.join(w.outside, "r10")),
  },
  {
    name: "core.fsmonitor written into a workspace file the repository's config includes",
    arrange: async (w) => {
      execFileSync("git", ["-C", w.root, "config", "include.path", "../shared.gitconfig"]);
    },
    command: (w) =>
      `python3 -c "open('shared' + '.gitconfig', 'w').write('[core]\\n\\tfsmonitor = touch ${w.outside}/r30\\n')"`,
    damaged: (w) => gitStatusRunsHook(w.root, path.join(w.outside, "r30")),
  },
  {
    name: "a nested repository made with core.fsmonitor in its config (git runs it there)",
    command: (w) =>
      `python3 -c "${nestedRepoByPython("nest1", { config: `[core]\\n\\tfsmonitor = touch ${w.outside}/r20\\n` })}"`,
    damaged: (w) => gitStatusRunsHook(path.join(w.root, "nest1"), path.join(w.outside, "r20")),
    evidence: /took core\.fsmonitor out of nest1\/\.git\/config/,
  },
  {
    name: "a nested repository made with a hook (the next commit there runs it)",
    command: (w) =>
      `python3 -c "${nestedRepoByPython("nest2", { "hooks/post-commit": `#!/bin/sh\\ntouch ${w.outside}/r21\\n` })}"`,
    damaged: (w) => existsSync(path.join(w.root, "nest2/.git/hooks/post-commit")),
    evidence: /removed the hook nest2\/\.git\/hooks\/post-commit/,
  },
  {
    name: "a .git file sending git to a configuration outside the workspace",
    arrange: async (w) => {
      execFileSync("git", ["init", "-q", path.join(w.outside, "evil")]);
      execFileSync("git", [
        "-C",
        path.join(w.outside, "evil"),
        "config",
        "core.fsmonitor",
        `touch ${w.outside}/r22`,
      ]);
    },
    command: (w) =>
      `python3 -c "import os; os.makedirs('nest3'); open(os.path.join('nest3', '.g' + 'it'), 'w').write('gitdir: ${w.outside}/evil/.git')"`,
    damaged: (w) => gitStatusRunsHook(path.join(w.root, "nest3"), path.join(w.outside, "r22")),
    evidence: /removed nest3\/\.git, which sent git to/,
  },
  {
    name: "a new git hook",
    command: (w) => `h=.git/hoo; printf '#!/bin/sh\\ntouch ${w.outside}/r11\\n' > "\${h}ks/pre-commit"`,
    damaged: (w) => existsSync(path.join(w.root, ".git/hooks/pre-commit")),
    evidence: RO,
  },
  {
    name: "git attributes naming a filter",
    command: () => `i=.git/inf; echo '* filter=evil' > "\${i}o/attributes"`,
    damaged: (w) => existsSync(path.join(w.root, ".git/info/attributes")),
    evidence: RO,
  },
  {
    name: "a submodule's git config",
    command: () => `m=.git/modu; mkdir -p "\${m}les/sub" && echo '[core]' > "\${m}les/sub/config"`,
    damaged: (w) => existsSync(path.join(w.root, ".git/modules/sub/config")),
    evidence: RO,
  },
  {
    name: "a new .gitmodules",
    command: () => `g=.gitmod; printf '[submodule "x"]\\n\\tpath = x\\n' > "\${g}ules"`,
    damaged: (w) => existsSync(path.join(w.root, ".gitmodules")),
    evidence: /Lathe removed \.gitmodules/,
  },
  {
    name: "a .git/commondir pointing git at another configuration",
    command: (w) => `c=.git/commo; echo ${q(w.outside)} > "\${c}ndir"`,
    damaged: (w) => existsSync(path.join(w.root, ".git/commondir")),
    evidence: /Lathe removed \.git\/commondir/,
  },
  {
    name: "the project's .lathe/settings.json rewritten",
    command: () => `l=.lat; echo '{"permissions":[]}' > "\${l}he/settings.json"`,
    damaged: async (w) => (await read(path.join(w.root, ".lathe/settings.json"))) !== "{}\n",
    evidence: RO,
  },
  {
    name: "a new project plugin in .lathe/tools",
    command: () => `l=.lat; mkdir -p "\${l}he/tools/x" && echo evil > "\${l}he/tools/x/index.js"`,
    damaged: (w) => existsSync(path.join(w.root, ".lathe/tools/x/index.js")),
    evidence: RO,
  },
  {
    name: "the user's $LATHE_HOME/settings.json rewritten",
    command: (w) => `h=${q(w.home)}; echo '{"permissions":[]}' > "$h/settings.json"`,
    damaged: async (w) => (await read(path.join(w.home, "settings.json"))) === '{"permissions":[]}\n',
    // No error to show: the sandbox hides $LATHE_HOME behind an empty folder of its own (see
    // lathe-home-private.ts), so the write lands there and is gone with the command.
  },
  {
    name: "a configured MCP server's script rewritten",
    command: () => `s=mcp/server; cp evil.mjs "\${s}.mjs"`,
    damaged: async (w) => (await read(path.join(w.root, "mcp/server.mjs"))).includes("replacement"),
    evidence: RO,
  },
];

/** Run a row with plain bash in a fresh copy of the layout: the damage must happen. */
async function control(row: Row): Promise<void> {
  const w = await layout("lathe-control-");
  try {
    await row.arrange?.(w);
    const ctx: Ctx = { ...w, victim: victim(), port };
    const before = connections;
    await new Promise<void>((resolve) => {
      const child = spawn("/bin/bash", ["-c", row.command(ctx)], { cwd: w.root, stdio: "ignore" });
      child.on("close", () => resolve());
    });
    await sleep(row.settleMs ?? 0);
    expect(await row.damaged(ctx, before), `control: plain bash did not do "${row.name}"`).toBe(true);
  } finally {
    await rm(w.base, { recursive: true, force: true });
  }
}

interface World extends Layout {
  engine: Engine;
  session: Session;
}

const PLUGIN = {
  name: "shell_runner",
  version: "1.0.0",
  description: "Runs a declared command.",
  input_schema: { type: "object", additionalProperties: true },
  readOnly: false,
  gated: false,
  // Declares the whole disk, so the policy lets its commands through and the kernel alone must
  // hold: the rows below are about the second wall, not the plugin's own scope.
  requires: {
    fs: { read: ["/**"], write: ["/**"] },
    shell: [{ cmd: "touch" }, { cmd: "git" }, { cmd: "tar" }, { cmd: "python3" }],
  },
};

/** The engine, every bash command allowed, yolo; a person approving everything when `approve`. */
async function openWorld(sandbox: boolean, approve: boolean, allowNetwork: string[] = []): Promise<World> {
  const w = await layout(sandbox ? "lathe-sandbox-on-" : "lathe-sandbox-off-");
  const settings = {
    permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
    shell: [{ cmd: "setsid" }, { cmd: "nohup" }, { cmd: "curl" }],
    mcpServers: { writer: { command: process.execPath, args: [path.join(w.root, "mcp/server.mjs")] } },
    sandbox: { enabled: sandbox, allowNetwork },
  };
  await writeFile(path.join(w.home, "settings.json"), JSON.stringify(settings));
  const tool = path.join(w.home, "tools/shell_runner");
  await mkdir(tool, { recursive: true });
  await writeFile(path.join(tool, "tool.yaml"), stringify(PLUGIN));
  await writeFile(path.join(tool, "TOOL.md"), "Runs a declared command.");
  await writeFile(
    path.join(tool, "index.js"),
    "export async function execute(args, runtime) { return await runtime.shell.run(args.cmd, args.argv); }\n",
  );
  const bundled = path.join(w.base, "bundled");
  await mkdir(bundled);
  const engine = await Engine.create({ root: w.root, latheHome: w.home, bundledPluginsDir: bundled });
  await engine.settleExtensions();
  const session = await engine.openSession({
    mode: "yolo",
    ...(approve ? { approver: async () => "once" as const } : {}),
  });
  return { ...w, engine, session };
}

async function closeWorld(w: World | undefined): Promise<void> {
  if (!w) return;
  await w.engine.close();
  await rm(w.base, { recursive: true, force: true });
}

const text = (e: Envelope): string =>
  e.type === "error" ? e.error_text : JSON.stringify((e as { data: unknown }).data);

describe.skipIf(NO_SANDBOX)("sandbox on: a person approved it, the kernel still holds", () => {
  let w: World;
  beforeAll(async () => {
    w = await openWorld(true, true);
    for (const row of BASH_ROWS) await row.arrange?.(w);
  });
  afterAll(() => closeWorld(w));

  it.each(BASH_ROWS.map((row) => [row.name, row] as const))("bash: %s", async (_name, row) => {
    await control(row);
    const ctx: Ctx = { ...w, victim: victim(), port };
    const before = connections;
    const envelope = await w.session.call("bash", { command: row.command(ctx), timeout_ms: 20_000 });
    // It ran: what stopped it is the sandbox, not the parser.
    expect(envelope.type, text(envelope)).toBe("output");
    if (row.evidence) expect(text(envelope)).toMatch(row.evidence);
    await sleep(row.settleMs ?? 0);
    expect(await row.damaged(ctx, before)).toBe(false);
  });

  it("ends a command aborted as it starts, with everything it started (no orphaned sandbox)", async () => {
    for (const delay of [0, 5, 20, 60]) {
      const marker = `100.${process.pid}${delay}7`;
      const controller = new AbortController();
      const call = w.session.call(
        "bash",
        { command: `sleep ${marker} & sleep ${marker}` },
        { signal: controller.signal },
      );
      await sleep(delay);
      controller.abort(new Error("stop"));
      expect((await call).type).toBe("error");
      await sleep(1500);
      expect(sleepers(marker), `after an abort at ${delay} ms`).toEqual([]);
    }
  });

  it("leaves no placeholders in a workspace that is also the process's working directory", async () => {
    // The nested repositories rows above made (git add refuses one without a commit).
    for (const nest of ["nest1", "nest2", "nest3", "nest9"])
      await rm(path.join(w.root, nest), { recursive: true, force: true });
    execFileSync("git", ["-C", w.root, "add", "-A"]);
    execFileSync("git", ["-C", w.root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base"]);
    const cwd = process.cwd();
    process.chdir(w.root);
    try {
      const envelope = await w.session.call("bash", {
        command: "echo new > new.txt; git status --porcelain; git add -A && echo added",
      });
      expect(text(envelope)).toBe(JSON.stringify({ output: "?? new.txt\nadded\n", exit_code: 0 }));
    } finally {
      process.chdir(cwd);
    }
    expect(process.cwd()).toBe(cwd);
  });

  const pluginRows: Array<
    [string, (w: Layout) => { cmd: string; argv: string[] }, (w: Layout) => boolean | Promise<boolean>]
  > = [
    [
      "touch a file outside the workspace",
      (l) => ({ cmd: "touch", argv: [path.join(l.outside, "p1")] }),
      (l) => existsSync(path.join(l.outside, "p1")),
    ],
    [
      "set core.fsmonitor in .git/config",
      (l) => ({ cmd: "python3", argv: ["-c", fsmonitorByPython(`${l.outside}/p2`)] }),
      (l) => gitStatusRunsHook(l.root, path.join(l.outside, "p2")),
    ],
    [
      "make a nested repository with core.fsmonitor in its config",
      (l) => ({
        cmd: "python3",
        argv: [
          "-c",
          nestedRepoByPython("nest9", { config: `[core]\\n\\tfsmonitor = touch ${l.outside}/p4\\n` }),
        ],
      }),
      (l) => gitStatusRunsHook(path.join(l.root, "nest9"), path.join(l.outside, "p4")),
    ],
    [
      "rewrite a configured MCP server's script (by unpacking an archive)",
      () => ({ cmd: "tar", argv: ["-xf", "update.tar"] }),
      async (l) => (await read(path.join(l.root, "mcp/server.mjs"))).includes("replacement"),
    ],
  ];

  it.each(pluginRows)("plugin shell.run: %s", async (_name, call, damaged) => {
    const c = await layout("lathe-control-");
    try {
      const { cmd, argv } = call(c);
      spawnSync(cmd, argv, { cwd: c.root, stdio: "ignore" });
      expect(await damaged(c), "control: the command itself does the damage").toBe(true);
    } finally {
      await rm(c.base, { recursive: true, force: true });
    }
    const envelope = await w.session.call("shell_runner", call(w));
    expect(envelope.type, text(envelope)).toBe("output");
    expect(await damaged(w)).toBe(false);
  });

  it("a stdio MCP server writes only where the sandbox lets it, and reaches no network", async () => {
    // Positive: it is running, and the workspace is writable to it.
    const ok = await w.session.call("write_file", { path: path.join(w.root, "allowed.txt"), content: "ok" });
    expect(text(ok)).toContain("wrote");
    expect(await read(path.join(w.root, "allowed.txt"))).toBe("ok");

    const c = await layout("lathe-control-");
    try {
      // Control: a plain process does all of it.
      const js = `const fs=require('fs');fs.writeFileSync(${JSON.stringify(path.join(c.outside, "m1"))},'x');fs.appendFileSync(${JSON.stringify(path.join(c.root, ".git/config"))},'[core]\\n\\tfsmonitor = touch ${c.outside}/m2\\n');fs.writeFileSync(${JSON.stringify(path.join(c.root, "mcp/server.mjs"))},'// replacement')`;
      execFileSync(process.execPath, ["-e", js]);
      expect(existsSync(path.join(c.outside, "m1"))).toBe(true);
      expect(gitStatusRunsHook(c.root, path.join(c.outside, "m2"))).toBe(true);
      expect(await read(path.join(c.root, "mcp/server.mjs"))).toContain("replacement");
    } finally {
      await rm(c.base, { recursive: true, force: true });
    }

    const attempts: Array<[string, string]> = [
      [path.join(w.outside, "m1"), "x"],
      [path.join(w.root, ".git/config"), `[core]\n\tfsmonitor = touch ${w.outside}/m2\n`],
      [path.join(w.root, "mcp/server.mjs"), "// replacement"],
    ];
    for (const [file, content] of attempts) {
      expect(text(await w.session.call("write_file", { path: file, content }))).toMatch(
        /error E(ROFS|BUSY|ACCES|PERM)/,
      );
    }
    expect(existsSync(path.join(w.outside, "m1"))).toBe(false);
    expect(gitStatusRunsHook(w.root, path.join(w.outside, "m2"))).toBe(false);
    expect(await read(path.join(w.root, "mcp/server.mjs"))).not.toContain("replacement");

    const before = connections;
    expect(text(await w.session.call("connect", { port }))).toMatch(/error/);
    expect(connections).toBe(before);
  });

  it("what a stdio MCP server plants in a nested repository's config during a call is taken out after it", async () => {
    const nested = (root: string) => {
      const dir = path.join(root, "nestm");
      execFileSync("git", ["init", "-q", dir]);
      return path.join(dir, ".git/config");
    };
    const planted = (marker: string) =>
      `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ${marker}\n`;
    // Positive control: the same write by a plain process makes the next git status run it.
    const c = await layout("lathe-control-");
    try {
      writeFileSync(nested(c.root), planted(path.join(c.outside, "m9")));
      expect(gitStatusRunsHook(path.join(c.root, "nestm"), path.join(c.outside, "m9"))).toBe(true);
    } finally {
      await rm(c.base, { recursive: true, force: true });
    }
    const config = nested(w.root);
    try {
      const envelope = await w.session.call("write_file", {
        path: config,
        content: planted(path.join(w.outside, "m9")),
      });
      expect(text(envelope)).toMatch(/took core\.fsmonitor out of nestm\/\.git\/config/);
      expect(text(envelope)).toContain(`wrote ${config}`);
      expect(gitStatusRunsHook(path.join(w.root, "nestm"), path.join(w.outside, "m9"))).toBe(false);
      expect(readFileSync(config, "utf8")).toContain("repositoryformatversion");
    } finally {
      await rm(path.join(w.root, "nestm"), { recursive: true, force: true });
    }
  });
});

describe.skipIf(NO_SANDBOX)("sandbox on with sandbox.allowNetwork: only the allowed host is reached", () => {
  let w: World;
  let allowed: HttpServer;
  let other: HttpServer;
  const hits = { allowed: 0, other: 0 };
  const serve = async (which: keyof typeof hits): Promise<HttpServer> => {
    const server = createHttpServer((_req, res) => {
      hits[which]++;
      res.end(`hello from ${which}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return server;
  };
  const portOf = (server: HttpServer) => (server.address() as AddressInfo).port;

  beforeAll(async () => {
    allowed = await serve("allowed");
    other = await serve("other");
    w = await openWorld(true, true, [`127.0.0.1:${portOf(allowed)}`]);
  });
  afterAll(async () => {
    await closeWorld(w);
    await new Promise((r) => allowed.close(r));
    await new Promise((r) => other.close(r));
  });

  // The sandbox's proxy variables exempt loopback (NO_PROXY); `--noproxy ''` sends these through it.
  it("reaches the allowed host through the sandbox's proxy, and nothing else", async () => {
    const ok = await w.session.call("bash", {
      command: `curl -s -m 10 --noproxy '' http://127.0.0.1:${portOf(allowed)}/`,
    });
    expect(text(ok)).toContain("hello from allowed");
    expect(hits.allowed).toBe(1);

    // Control: outside Lathe the other server answers (asynchronously: it runs in this process).
    await new Promise((resolve) =>
      spawn("curl", ["-s", "-m", "5", `http://127.0.0.1:${portOf(other)}/`], { stdio: "ignore" }).on(
        "close",
        resolve,
      ),
    );
    expect(hits.other).toBe(1);
    const refused = await w.session.call("bash", {
      command: `curl -s -m 10 --noproxy '' -o /dev/null -w '%{http_code}' http://127.0.0.1:${portOf(other)}/; echo`,
    });
    expect(text(refused)).toMatch(/"output":"(403|000)\\n"/);
    // A connection that ignores the proxy has no network to leave by.
    const direct = await w.session.call("bash", {
      command: `node -e "require('net').connect(${portOf(other)},'127.0.0.1',()=>console.log('connected')).on('error',e=>console.log(e.code))"`,
    });
    expect(text(direct)).not.toContain("connected");
    expect(hits.other).toBe(1);
  });

  it("still holds the protected paths and the rest of the disk", async () => {
    const marker = path.join(w.outside, "n1");
    const envelope = await w.session.call("bash", {
      command: `python3 -c "${fsmonitorByPython(marker)}"; d=${q(w.outside)}; echo x > "$d/n2"`,
    });
    expect(envelope.type, text(envelope)).toBe("output");
    expect(gitStatusRunsHook(w.root, marker)).toBe(false);
    expect(existsSync(path.join(w.outside, "n2"))).toBe(false);
  });
});

describe("sandbox off (settings): fail closed, say so once", () => {
  let w: World;
  beforeAll(async () => {
    w = await openWorld(false, false);
    for (const row of BASH_ROWS) await row.arrange?.(w);
  });
  afterAll(() => closeWorld(w));

  it("says once that the sandbox is off, why and how to turn it on", () => {
    const said = w.engine.notices.filter((n) => /OS sandbox is not active/.test(n));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/"sandbox": \{"enabled": false\} in .*settings\.json.*set "enabled" to true/);
    expect(w.engine.sandboxStatus.active).toBe(false);
  });

  it.each(BASH_ROWS.map((row) => [row.name, row] as const))(
    "bash: %s is refused headless",
    async (_name, row) => {
      const ctx: Ctx = { ...w, victim: victim(), port };
      const before = connections;
      const envelope = await w.session.call("bash", { command: row.command(ctx), timeout_ms: 20_000 });
      expect(envelope.type).toBe("error");
      expect(text(envelope)).toMatch(/needs approval and this host cannot ask anyone/);
      expect(text(envelope)).toMatch(
        /The OS sandbox is not active \(it is turned off.*To turn the sandbox on: .*"enabled"/,
      );
      await sleep(row.settleMs ?? 0);
      expect(await row.damaged(ctx, before)).toBe(false);
    },
  );

  it.each(["cat README.md", "ls -a", "grep -n hello README.md", "head -n 1 README.md"])(
    "the provably read-only %s still runs",
    async (command) => {
      const envelope = await w.session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("output");
    },
  );

  // A folder handed over with its own .git (an archive, a shared drive): git runs what that
  // repository's configuration names even for a command that reads only. Unconfined, that must
  // not happen unasked.
  const handedRows: Array<[string, string, (dir: string, marker: string) => void]> = [
    [
      "git status, core.fsmonitor",
      "git -C handed1 status --short",
      (dir, marker) => execFileSync("git", ["-C", dir, "config", "core.fsmonitor", `touch ${marker}; false`]),
    ],
    [
      "git log, core.pager (bash runs on a terminal)",
      "cd handed2 && git log -1",
      (dir, marker) => execFileSync("git", ["-C", dir, "config", "core.pager", `touch ${marker}; cat`]),
    ],
    [
      "git status, a post-index-change hook",
      "git -C handed3 status",
      (dir, marker) => {
        const hook = path.join(dir, ".git/hooks/post-index-change");
        // The hook runs when git status writes the index. f's time, unlike the one the index
        // holds, makes it refresh and write it every time; the same second as the commit does
        // only sometimes (git's racy-clean check).
        execFileSync("bash", [
          "-c",
          `printf '#!/bin/sh\ntouch ${marker}\n' > ${q(hook)} && chmod +x ${q(hook)} && touch -m -d @1000000000 ${q(path.join(dir, "f"))}`,
        ]);
      },
    ],
    [
      "git status, core.fsmonitor in a git folder its .git links to",
      "git -C handed4 status --short",
      (dir, marker) => {
        const store = `${dir}-store`;
        renameSync(path.join(dir, ".git"), store);
        symlinkSync(store, path.join(dir, ".git"));
        execFileSync("git", ["-C", dir, "config", "core.fsmonitor", `touch ${marker}; false`]);
      },
    ],
    [
      'git status, a .git file naming " store" (git keeps the space) beside a clean "store"',
      "git -C handed5 status --short",
      (dir, marker) => {
        renameSync(path.join(dir, ".git"), path.join(dir, " store"));
        execFileSync("git", ["init", "-q", "--bare", path.join(dir, "store")]);
        writeFileSync(path.join(dir, ".git"), "gitdir:  store\n");
        execFileSync("git", ["-C", dir, "config", "core.fsmonitor", `touch ${marker}; false`]);
      },
    ],
    [
      "git log, core.pager in a bare repository (git takes the folder itself)",
      "git -C handed6 log -1",
      (dir, marker) => {
        renameSync(dir, `${dir}-work`);
        execFileSync("git", ["clone", "-q", "--bare", `${dir}-work`, dir]);
        execFileSync("git", ["-C", dir, "config", "core.pager", `touch ${marker}; cat`]);
      },
    ],
    [
      "git status, an empty .git folder in a subfolder (git passes over it to the repository above)",
      "git -C handed7/sub status --short",
      (dir, marker) => {
        mkdirSync(path.join(dir, "sub/.git"), { recursive: true });
        execFileSync("git", ["-C", dir, "config", "core.fsmonitor", `touch ${marker}; false`]);
      },
    ],
    [
      "git status, core.fsmonitor of a submodule (git status runs git status in it)",
      "git -C handed8 status --short",
      (dir, marker) => {
        const lib = `${dir}-lib`;
        const git = (...args: string[]) =>
          execFileSync(
            "git",
            ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always", ...args],
            {
              stdio: "pipe",
            },
          );
        git("init", "-q", lib);
        writeFileSync(path.join(lib, "f"), "x\n");
        git("-C", lib, "add", "f");
        git("-C", lib, "commit", "-qm", "lib");
        git("-C", dir, "submodule", "add", "-q", lib, "sub");
        git("-C", dir, "commit", "-qm", "sub");
        git("-C", path.join(dir, "sub"), "config", "core.fsmonitor", `touch ${marker}; false`);
        writeFileSync(path.join(dir, "sub/f"), "changed\n");
      },
    ],
    [
      "git status, core.fsmonitor of a submodule checked out with a .git folder of its own",
      "git -C handed9 status --short",
      (dir, marker) => {
        const sub = path.join(dir, "old");
        const git = (...args: string[]) =>
          execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { stdio: "pipe" });
        git("init", "-q", sub);
        writeFileSync(path.join(sub, "f"), "x\n");
        git("-C", sub, "add", "f");
        git("-C", sub, "commit", "-qm", "old");
        writeFileSync(path.join(dir, ".gitmodules"), '[submodule "old"]\n\tpath = old\n\turl = ./old\n');
        git("-C", dir, "add", ".gitmodules", "old");
        git("-C", dir, "commit", "-qm", "old");
        git("-C", sub, "config", "core.fsmonitor", `touch ${marker}; false`);
        writeFileSync(path.join(sub, "f"), "changed\n");
      },
    ],
    [
      "git status, core.fsmonitor of a repository added inside it without .gitmodules (a gitlink)",
      "git -C handed10 status --short",
      (dir, marker) => {
        const inner = path.join(dir, "inner");
        const git = (...args: string[]) =>
          execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { stdio: "pipe" });
        git("init", "-q", inner);
        writeFileSync(path.join(inner, "f"), "x\n");
        git("-C", inner, "add", "f");
        git("-C", inner, "commit", "-qm", "inner");
        git("-C", dir, "add", "inner");
        git("-C", dir, "commit", "-qm", "inner");
        git("-C", inner, "config", "core.fsmonitor", `touch ${marker}; false`);
        writeFileSync(path.join(inner, "f"), "changed\n");
      },
    ],
    [
      "git status, core.fsmonitor of a gitlink added after the index was split (core.splitIndex)",
      "git -C handed11 status --short",
      (dir, marker) => {
        const inner = path.join(dir, "inner");
        const git = (...args: string[]) =>
          execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { stdio: "pipe" });
        git("-C", dir, "config", "splitIndex.maxPercentChange", "100");
        git("-C", dir, "update-index", "--split-index");
        git("init", "-q", inner);
        writeFileSync(path.join(inner, "f"), "x\n");
        git("-C", inner, "add", "f");
        git("-C", inner, "commit", "-qm", "inner");
        git("-C", dir, "add", "inner");
        git("-C", inner, "config", "core.fsmonitor", `touch ${marker}; false`);
        writeFileSync(path.join(inner, "f"), "changed\n");
      },
    ],
  ];
  it.each(handedRows)("%s in a repository handed over is not run unasked", async (_name, command, plant) => {
    const name = /handed\d+/.exec(command)?.[0] as string;
    const control = await layout("lathe-control-");
    try {
      // Positive control: in a terminal, the same command runs what the repository names.
      const dir = path.join(control.root, name);
      await mkdir(dir);
      execFileSync("bash", [
        "-c",
        `cd ${q(dir)} && echo x > f && git init -q && git add f && git -c user.name=t -c user.email=t@t commit -qm x`,
      ]);
      const marker = path.join(control.outside, "ran");
      plant(dir, marker);
      spawnSync("script", ["-qec", command, "/dev/null"], {
        cwd: control.root,
        stdio: "ignore",
        timeout: 10_000,
      });
      expect(existsSync(marker), `control: ${command} did not run it`).toBe(true);
    } finally {
      await rm(control.base, { recursive: true, force: true });
    }
    const dir = path.join(w.root, name);
    await mkdir(dir);
    execFileSync("bash", [
      "-c",
      `cd ${q(dir)} && echo x > f && git init -q && git add f && git -c user.name=t -c user.email=t@t commit -qm x`,
    ]);
    const marker = path.join(w.outside, `ran-${name}`);
    plant(dir, marker);
    const envelope = await w.session.call("bash", { command });
    expect(envelope.type).toBe("error");
    expect(text(envelope)).toMatch(/git there runs programs its repository names/);
    expect(existsSync(marker)).toBe(false);
  });

  it("a read-only git command in a repository that names no program still runs unasked", async () => {
    const dir = path.join(w.root, "plain");
    await mkdir(dir);
    execFileSync("bash", ["-c", `cd ${q(dir)} && git init -q && git config user.name someone`]);
    const envelope = await w.session.call("bash", { command: "git -C plain status --short" });
    expect(envelope.type, text(envelope)).toBe("output");
  });

  it("a read-only git command in a repository with a split index and a clean gitlink runs unasked", async () => {
    const dir = path.join(w.root, "splitplain");
    await mkdir(dir);
    execFileSync("bash", [
      "-c",
      `cd ${q(dir)} && echo x > f && git init -q && git add f && git -c user.name=t -c user.email=t@t commit -qm x` +
        ` && git config splitIndex.maxPercentChange 100 && git update-index --split-index` +
        ` && git init -q inner && echo y > inner/g && git -C inner add g && git -C inner -c user.name=t -c user.email=t@t commit -qm i` +
        ` && git add inner 2>/dev/null`,
    ]);
    const envelope = await w.session.call("bash", { command: "git -C splitplain status --short" });
    expect(envelope.type, text(envelope)).toBe("output");
  });

  it("a plugin's command is refused headless, with the reason", async () => {
    const envelope = await w.session.call("shell_runner", {
      cmd: "touch",
      argv: [path.join(w.outside, "p0")],
    });
    expect(text(envelope)).toMatch(/OS sandbox is not active.*starts a command for a plugin/);
    expect(existsSync(path.join(w.outside, "p0"))).toBe(false);
  });

  it("a stdio MCP server is not started headless, and says why and the fix", () => {
    expect(w.engine.registry.get("write_file")).toBeUndefined();
    expect(w.engine.registry.disabledTools()).toContainEqual(
      expect.objectContaining({
        id: "writer",
        reason: expect.stringMatching(
          /MCP server "writer" was not started: the OS sandbox is not active .* only with a person's approval, which this host cannot ask \(headless\)\. To fix it: /,
        ),
      }),
    );
  });

  it("a person can still approve a command to run unconfined", async () => {
    const session = await w.engine.openSession({ mode: "yolo", approver: async () => "once" });
    const envelope = await session.call("bash", { command: "touch approved.txt" });
    expect(envelope.type, text(envelope)).toBe("output");
    expect(existsSync(path.join(w.root, "approved.txt"))).toBe(true);
    await session.close();
  });
});
