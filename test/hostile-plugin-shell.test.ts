import { execFile, execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPluginWorld, plugin, writePlugin, type PluginWorld } from "./support/plugin-test-kit.ts";
import { errorOf, outputOf } from "./support/envelope-of.ts";
import type { Session } from "../src/main/engine/session/session.ts";
import type { ShellRunRequirement } from "../src/main/engine/tools/requirement-set.ts";

/**
 * Declared commands with free arguments are as strong as the command. Each row is a plugin that
 * declared a command (and maybe some files), and arguments that turn it into something else:
 * git options that run programs, writers aimed outside, wrappers that run undeclared commands,
 * a prefix climbed with `..`. The positive control runs the same argv with plain execFile in a
 * twin folder and the damage happens; through Lathe — even in yolo mode — it is refused and
 * nothing changes on disk.
 */

const SECRET = "shell-secret-44a9";
const OPEN_ARGS = { type: "object", additionalProperties: true };
const READ_WS = { read: ["{workspace}/**"] };

interface Row {
  /** What the plugin declared. */
  shell: ShellRunRequirement[];
  fs?: { read?: string[]; write?: string[] };
  cmd: string;
  argv: string[];
  /** The damage, seen in the control's twin folder: a file outside, or the secret in the output. */
  damage: { created?: string; createdInside?: string; output?: string; changed?: string };
  refusal: RegExp;
}

const ROWS: Record<string, Row> = {
  "git -c alias.x=!cmd runs any program": {
    shell: [{ cmd: "git" }],
    cmd: "git",
    argv: ["-c", "alias.pwn=!touch pwned-alias", "pwn"],
    damage: { createdInside: "pwned-alias" },
    refusal: /can make git run another program/,
  },
  "git -c core.fsmonitor=… runs any program": {
    shell: [{ cmd: "git" }],
    cmd: "git",
    argv: ["-c", "core.fsmonitor=touch pwned-fsmonitor", "status"],
    damage: { createdInside: "pwned-fsmonitor" },
    refusal: /can make git run another program/,
  },
  "git log --output= writes outside": {
    shell: [{ cmd: "git" }],
    fs: READ_WS,
    cmd: "git",
    argv: ["log", "-1", "--output=../outside/pwned-output"],
    damage: { created: "pwned-output" },
    refusal: /Access denied: .*outside\/pwned-output.* is outside what this tool may (read|write)/,
  },
  "cp writes outside with no fs.write declared": {
    shell: [{ cmd: "cp" }],
    fs: READ_WS,
    cmd: "cp",
    argv: ["notes.txt", "../outside/copied"],
    damage: { created: "copied" },
    refusal: /Access denied: .*outside\/copied.* This tool declared no paths it may write/,
  },
  "tee writes outside": {
    shell: [{ cmd: "tee" }],
    cmd: "tee",
    argv: ["../outside/pwned-tee"],
    damage: { created: "pwned-tee" },
    refusal: /Access denied: .*outside\/pwned-tee/,
  },
  "sed -i changes a file with no fs.write declared": {
    shell: [{ cmd: "sed" }],
    fs: READ_WS,
    cmd: "sed",
    argv: ["-i", "s/notes/pwned/", "notes.txt"],
    damage: { changed: "notes.txt" },
    refusal: /Access denied: .*notes\.txt.* This tool declared no paths it may write/,
  },
  "{prefix: docs/} climbed with docs/../../": {
    shell: [{ cmd: "cat", args: [{ prefix: "docs/" }] }],
    fs: READ_WS,
    cmd: "cat",
    argv: ["docs/../../outside/secret.txt"],
    damage: { output: SECRET },
    refusal: /may not run "cat" \(in "cat docs\/\.\.\/\.\.\/outside\/secret\.txt"\)/,
  },
  "a free argument that reads outside": {
    shell: [{ cmd: "cat", args: [{ wildcard: true }] }],
    fs: READ_WS,
    cmd: "cat",
    argv: ["../outside/secret.txt"],
    damage: { output: SECRET },
    refusal: /Access denied: .*outside\/secret\.txt.* is outside what this tool may read/,
  },
  "a free argument that reads an absolute path outside": {
    shell: [{ cmd: "cat", args: [{ wildcard: true }] }],
    fs: READ_WS,
    cmd: "cat",
    argv: ["@OUTSIDE@/secret.txt"],
    damage: { output: SECRET },
    refusal: /Access denied: .*outside\/secret\.txt.* is outside what this tool may read/,
  },
  "a free argument read with no fs.read declared": {
    shell: [{ cmd: "cat", args: [{ wildcard: true }] }],
    cmd: "cat",
    argv: ["secret-in-ws.txt"],
    damage: { output: SECRET },
    refusal: /Access denied: .*secret-in-ws\.txt.* This tool declared no paths it may read/,
  },
  "rg --pre runs an undeclared program on the files it searches": {
    shell: [{ cmd: "rg" }],
    fs: READ_WS,
    cmd: "rg",
    argv: ["--pre", "sh", "x", "script.txt"],
    damage: { createdInside: "pwned-rg" },
    refusal: /"rg --pre" runs the program "sh" on every file it searches/,
  },
  "env runs an undeclared command": {
    shell: [{ cmd: "env" }],
    cmd: "env",
    argv: ["touch", "../outside/pwned-env"],
    damage: { created: "pwned-env" },
    refusal: /may not run "touch"/,
  },
  "find -exec runs an undeclared command": {
    shell: [{ cmd: "find" }],
    fs: READ_WS,
    cmd: "find",
    argv: [".", "-maxdepth", "0", "-exec", "touch", "../outside/pwned-find", ";"],
    damage: { created: "pwned-find" },
    refusal: /may not run "touch"/,
  },
  "sh -c with free code": {
    shell: [{ cmd: "sh", args: ["-c", { wildcard: true }] }],
    cmd: "sh",
    argv: ["-c", "touch ../outside/pwned-sh"],
    damage: { created: "pwned-sh" },
    refusal: /may not run "touch"/,
  },
  "sh -c with a redirection outside": {
    shell: [{ cmd: "sh", args: ["-c", { wildcard: true }] }, { cmd: "echo" }],
    cmd: "sh",
    argv: ["-c", "echo pwned > ../outside/pwned-redirect"],
    damage: { created: "pwned-redirect" },
    refusal: /Access denied: .*outside\/pwned-redirect/,
  },
};

let world: PluginWorld;
let session: Session;
let outside: string;
let twin: { root: string; outside: string; base: string };

function runnerName(index: number): string {
  return `runner_${index}`;
}

async function layout(root: string, outsideDir: string): Promise<void> {
  await mkdir(root, { recursive: true });
  await mkdir(outsideDir, { recursive: true });
  await writeFile(path.join(root, "notes.txt"), "notes\n");
  await writeFile(path.join(root, "secret-in-ws.txt"), SECRET);
  await writeFile(path.join(root, "script.txt"), "touch pwned-rg\n");
  await mkdir(path.join(root, "docs"));
  await writeFile(path.join(root, "docs", "readme.txt"), "docs\n");
  await writeFile(path.join(outsideDir, "secret.txt"), SECRET);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
  git("init", "-q");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first");
}

/** Every file below `dir` but git's own and Lathe's home (its database changes with each call). */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of (await readdir(dir, { recursive: true })).sort()) {
    const parts = rel.split(path.sep);
    if (parts.includes(".git") || (parts[0] === "home" && parts[1] !== "tools")) continue;
    out[rel] = await readFile(path.join(dir, rel), "utf8").catch(() => "<dir>");
  }
  return out;
}

function argvFor(row: Row, outsideDir: string): string[] {
  return row.argv.map((a) => a.replace("@OUTSIDE@", outsideDir));
}

function plainRun(cmd: string, argv: string[], cwd: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(cmd, argv, { cwd }, (_err, stdout, stderr) => resolve(`${stdout}${stderr}`)).stdin?.end();
  });
}

beforeAll(async () => {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-shell-twin-")));
  twin = { base, root: path.join(base, "ws"), outside: path.join(base, "outside") };
  await layout(twin.root, twin.outside);
  world = await openPluginWorld({
    arrange: async (w) => {
      for (const [index, row] of Object.values(ROWS).entries()) {
        await writePlugin(
          w.globalDir,
          runnerName(index),
          plugin(runnerName(index), "return await runtime.shell.run(args.cmd, args.argv);", {
            input_schema: OPEN_ARGS,
            readOnly: false,
            requires: { shell: row.shell, ...(row.fs ? { fs: row.fs } : {}) },
          }),
        );
      }
      const safe = {
        input_schema: OPEN_ARGS,
        requires: {
          shell: [
            { cmd: "git", args: ["log", "--oneline", { prefix: "--max-count=" }] },
            { cmd: "cat", args: [{ prefix: "docs/" }] },
            { cmd: "echo" },
          ],
          fs: READ_WS,
        },
      };
      await writePlugin(
        w.globalDir,
        "safe",
        plugin("safe", "return await runtime.shell.run(args.cmd, args.argv);", safe),
      );
      await writePlugin(
        w.globalDir,
        "git_in_workspace",
        plugin("git_in_workspace", "return await runtime.shell.run('git', args.argv);", {
          input_schema: OPEN_ARGS,
          readOnly: false,
          requires: { shell: [{ cmd: "git" }], fs: { read: ["{workspace}/**"], write: ["{workspace}/**"] } },
        }),
      );
      await writePlugin(
        w.globalDir,
        "any_command",
        plugin("any_command", "return 1;", { requires: { shell: [{ cmd: "*" }] } }),
      );
    },
  });
  outside = path.join(world.base, "outside");
  await layout(world.root, outside);
  session = await world.session("yolo");
});

afterAll(async () => {
  await world?.cleanup();
  await rm(twin.base, { recursive: true, force: true });
});

describe("plugin shell.run: the same analysis as bash, and the plugin's fs scope", () => {
  it.each(Object.entries(ROWS).map(([name, row], index) => [name, row, index] as const))(
    "%s",
    async (_name, row, index) => {
      // Positive control: plain execFile in the twin folder really does the damage.
      const twinBefore = await snapshot(twin.base);
      const output = await plainRun(row.cmd, argvFor(row, twin.outside), twin.root);
      if (row.damage.created) expect(await readdir(twin.outside)).toContain(row.damage.created);
      if (row.damage.createdInside) expect(await readdir(twin.root)).toContain(row.damage.createdInside);
      if (row.damage.output) expect(output).toContain(row.damage.output);
      if (row.damage.changed)
        expect(await readFile(path.join(twin.root, row.damage.changed), "utf8")).not.toBe(
          twinBefore[row.damage.changed],
        );

      // Lathe, in yolo mode: refused before anything runs; nothing changes.
      const before = await snapshot(world.base);
      const text = errorOf(
        await session.call(runnerName(index), { cmd: row.cmd, argv: argvFor(row, outside) }),
      );
      expect(text).toMatch(row.refusal);
      expect(text).not.toContain(SECRET);
      expect(await snapshot(world.base)).toEqual(before);
    },
  );

  it.each([
    ["a fully declared git shape", "git", ["log", "--oneline", "--max-count=1"], /first/],
    ["a prefix that stays below docs/", "cat", ["docs/readme.txt"], /docs/],
    ["a free word that is not a file", "echo", ["hello", "world"], /hello world/],
  ])("still runs %s", async (_name, cmd, argv, expected) => {
    const data = outputOf<{ exit_code: number; output: string }>(await session.call("safe", { cmd, argv }));
    expect(data.exit_code).toBe(0);
    expect(data.output).toMatch(expected);
  });

  it("judges git config --global as the home folder's config, outside a workspace-only fs.write", async () => {
    const argv = ["config", "--global", "user.name", "pwned-global"];
    // Positive control: git writes the config of whatever folder HOME names.
    const twinHome = path.join(twin.base, "user-home");
    await mkdir(twinHome);
    execFileSync("git", argv, { cwd: twin.root, env: { ...process.env, HOME: twinHome }, stdio: "ignore" });
    expect(await readFile(path.join(twinHome, ".gitconfig"), "utf8")).toContain("pwned-global");

    // Lathe (yolo): the plugin declared writes in the workspace only; ~/.gitconfig is not there.
    const userHome = path.join(world.base, "user-home");
    await mkdir(userHome);
    const savedHome = process.env.HOME;
    process.env.HOME = userHome;
    try {
      const text = errorOf(await session.call("git_in_workspace", { argv }));
      expect(text).toMatch(
        new RegExp(`Access denied: "${userHome}/\\.gitconfig" is outside what this tool may write`),
      );
    } finally {
      process.env.HOME = savedHome;
    }
    expect(await readdir(userHome)).toEqual([]);
    expect(await readdir(world.root)).not.toContain("~");
  });

  it('refuses `cmd: "*"` at load, saying why', () => {
    const status = world.manager.status().find((s) => s.name === "any_command");
    expect(status?.state).toBe("disabled");
    expect(status?.reason).toMatch(
      /field "requires\.shell\[0\]\.cmd" is "\*", which would let the plugin run any program outside its isolate/,
    );
  });
});
