import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeShell } from "./shell/shell-analysis.ts";
import { versionManagerStandIn } from "./version-manager-shims.ts";

// Without a sandbox a toolchain's bare version query runs unasked when its name leads to the
// toolchain itself. Two scripts in that place are read through: npm's own npm-cli.js (run by a
// native node) and a pyenv shim whose folder names an installed version. What either would run
// from a name the folder controls (a path, `system`, a version not installed, a script) asks.

let base: string;
let ws: string;
let root: string;
const marker = (): string => path.join(base, "marker");
/** A native program to stand for an installed python: a copy of one of the system's. */
const NATIVE = ["/bin/true", "/usr/bin/true"].find((p) => existsSync(p)) as string;

const shim = (pyenvRoot: string): string =>
  [
    "#!/usr/bin/env bash",
    "set -e",
    '[ -n "$PYENV_DEBUG" ] && set -x',
    "",
    'program="${0##*/}"',
    "",
    `export PYENV_ROOT="${pyenvRoot}"`,
    `exec "${pyenvRoot}/libexec/pyenv" exec "$program" "$@"`,
    "",
  ].join("\n");

const decide = (command: string, searchPath: string, folder = ws): string | undefined =>
  versionManagerStandIn(analyzeShell(command).commands, searchPath, folder);

const saved = { version: process.env.PYENV_VERSION, dir: process.env.PYENV_DIR };

beforeAll(async () => {
  // The user's own pyenv settings would choose instead of the folder.
  delete process.env.PYENV_VERSION;
  delete process.env.PYENV_DIR;
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-script-runners-")));
  ws = path.join(base, "ws");
  root = path.join(base, "pyenv");
  for (const dir of [
    ws,
    path.join(root, "shims"),
    path.join(root, "libexec"),
    path.join(root, "versions/3.12.0/bin"),
  ])
    await mkdir(dir, { recursive: true });
  await writeFile(path.join(root, "shims/python"), shim(root), { mode: 0o755 });
  // pyenv as it was before 2.3.3 (CVE-2022-35861): the version file's word joined to the path as written.
  await writeFile(
    path.join(root, "libexec/pyenv"),
    '#!/bin/sh\nv=$(head -n 1 .python-version)\nshift 2\nexec "$PYENV_ROOT/versions/$v/bin/python" "$@"\n',
    { mode: 0o755 },
  );
  await copyFile(NATIVE, path.join(root, "versions/3.12.0/bin/python3.12"));
  await symlink("python3.12", path.join(root, "versions/3.12.0/bin/python"));
  // An installed "version" that is a script.
  await mkdir(path.join(root, "versions/scripted/bin"), { recursive: true });
  await writeFile(path.join(root, "versions/scripted/bin/python"), "#!/bin/sh\necho 3\n", { mode: 0o755 });
  // A program in the workspace that a path-like version name reaches.
  await mkdir(path.join(ws, "evil/bin"), { recursive: true });
  await writeFile(path.join(ws, "evil/bin/python"), `#!/bin/sh\ntouch ${marker()}\n`, { mode: 0o755 });
  await writeFile(path.join(root, "version"), "3.12.0\n");
});

afterAll(async () => {
  if (saved.version !== undefined) process.env.PYENV_VERSION = saved.version;
  if (saved.dir !== undefined) process.env.PYENV_DIR = saved.dir;
  await rm(base, { recursive: true, force: true });
});

describe("a pyenv shim asked for its version", () => {
  const shims = (): string => `${path.join(root, "shims")}:/usr/bin:/bin`;

  it("runs the workspace's program when the folder names a path as its version (plain bash), and asks", async () => {
    await writeFile(path.join(ws, ".python-version"), "../../ws/evil\n");
    try {
      const plain = spawnSync("/bin/bash", ["-c", "python --version"], {
        cwd: ws,
        env: { ...process.env, PATH: shims() },
      });
      expect(existsSync(marker()), `plain bash did not run ws/evil: ${String(plain.stderr)}`).toBe(true);
      expect(decide("python --version", shims())).toMatch(
        /"python" is pyenv's stand-in: the version .*\.python-version" names first may be read as a path by pyenv/,
      );
      expect(decide("cd .. && python --version", shims(), path.join(ws, "evil"))).toMatch(
        /may be read as a path/,
      );
    } finally {
      await rm(marker(), { force: true });
      await rm(path.join(ws, ".python-version"));
    }
  });

  it.each([
    ["system", /"system" version .* runs the "python" found further on PATH/],
    ["3.99", /the version .* names first is not installed/],
    ["scripted", /version "scripted" .* runs ".*scripted\/bin\/python", which is not a native python/],
    ["3.12.0\n../x", /the version .* names in place 2 may be read as a path/],
    ["", /names no version, so pyenv runs the "system" one/],
  ])("asks when .python-version says %j", async (content, reason) => {
    await writeFile(path.join(ws, ".python-version"), `${content}\n`);
    try {
      expect(decide("python --version", shims())).toMatch(reason);
      expect(decide("python -V", shims())).toMatch(reason);
    } finally {
      await rm(path.join(ws, ".python-version"));
    }
  });

  // A version file linked to a file that holds a secret: pyenv would print its words as versions
  // not installed; the reason names none of them.
  it("does not repeat a word of the version file that is not an installed version", async () => {
    await writeFile(path.join(base, "token"), "ghp_NotAVersion1234\n");
    await symlink(path.join(base, "token"), path.join(ws, ".python-version"));
    try {
      const reason = decide("python --version", shims());
      expect(reason).toMatch(/names first is not installed/);
      expect(reason).not.toContain("ghp_");
    } finally {
      await rm(path.join(ws, ".python-version"));
    }
  });

  it("does not open a global version file that is a FIFO (the decision would wait forever)", async () => {
    const global = path.join(root, "version");
    await rm(global);
    try {
      expect(spawnSync("mkfifo", [global]).status).toBe(0);
      expect(decide("python --version", shims())).toMatch(/version" is not a file/);
    } finally {
      await rm(global, { force: true });
      await writeFile(global, "3.12.0\n");
    }
  });

  it("runs unasked when the folder (or pyenv's global file) names an installed native version", async () => {
    expect(decide("python --version", shims())).toBeUndefined();
    await writeFile(path.join(ws, ".python-version"), "# pinned\n3.12.0\n");
    try {
      expect(decide("python --version", shims())).toBeUndefined();
      expect(decide("python -V", shims())).toBeUndefined();
    } finally {
      await rm(path.join(ws, ".python-version"));
    }
  });

  // pyenv resolves a version that is not installed as a prefix of installed ones (pyenv-latest:
  // `3.12` runs the newest installed 3.12.x release), and `python-3.12` as `3.12`.
  it.each(["3.12", "3", "python-3.12", "python-3.12.0"])(
    "runs unasked when .python-version says %j, a shorthand for the installed native 3.12.0",
    async (content) => {
      await writeFile(path.join(ws, ".python-version"), `${content}\n`);
      try {
        expect(decide("python --version", shims())).toBeUndefined();
      } finally {
        await rm(path.join(ws, ".python-version"));
      }
    },
  );

  it.each([
    // Only a pre-release or a free-threaded build matches: pyenv resolves none of them.
    ["3.14", ["3.14.0rc1", "3.14-dev"], /names first is not installed/],
    ["3.13t", ["3.13.1t"], /names first is not installed/],
    ["3.1", [], /names first is not installed/],
    // pyenv picks the newest, 3.15.2, a script; and every match is held to the same.
    [
      "3.15",
      ["3.15.0", "3.15.2=script"],
      /is a prefix pyenv may resolve to "3\.15\.2": .*not a native python/,
    ],
    ["3.16", ["3.16.0=script", "3.16.1"], /is a prefix pyenv may resolve to "3\.16\.0"/],
    ["3.17", ["3.17.0", "3.17.1=empty"], /resolve to "3\.17\.1": version "3\.17\.1" .* has no "python"/],
  ])(
    "asks when .python-version says %j and the versions it may mean are %j",
    async (content, installed, reason) => {
      const made: string[] = [];
      for (const spec of installed) {
        const [name, kind] = spec.split("=") as [string, string | undefined];
        const bin = path.join(root, "versions", name, "bin");
        made.push(path.join(root, "versions", name));
        await mkdir(bin, { recursive: true });
        if (kind === "script")
          await writeFile(path.join(bin, "python"), "#!/bin/sh\necho 3\n", { mode: 0o755 });
        else if (kind === undefined) await copyFile(NATIVE, path.join(bin, "python"));
      }
      await writeFile(path.join(ws, ".python-version"), `${content}\n`);
      try {
        expect(decide("python --version", shims())).toMatch(reason);
      } finally {
        await rm(path.join(ws, ".python-version"));
        for (const folder of made) await rm(folder, { recursive: true });
      }
    },
  );

  it("still asks for anything but a bare version query, and for a script that is no pyenv shim", async () => {
    expect(decide("python --help", shims())).toMatch(/is a script/);
    await mkdir(path.join(base, "other"), { recursive: true });
    await writeFile(path.join(base, "other/python"), shim(root), { mode: 0o755 });
    expect(decide("python --version", `${path.join(base, "other")}:/usr/bin`)).toMatch(/is a script/);
  });
});

describe("npm asked for its version", () => {
  let prefix: string;
  beforeAll(async () => {
    prefix = path.join(base, "node-prefix");
    await mkdir(path.join(prefix, "lib/node_modules/npm/bin"), { recursive: true });
    await mkdir(path.join(prefix, "bin"), { recursive: true });
    await writeFile(
      path.join(prefix, "lib/node_modules/npm/bin/npm-cli.js"),
      "#!/usr/bin/env node\nrequire('../lib/cli.js')(process)\n",
      { mode: 0o755 },
    );
    await symlink("../lib/node_modules/npm/bin/npm-cli.js", path.join(prefix, "bin/npm"));
    await symlink(process.execPath, path.join(prefix, "bin/node"));
    // A corepack-style npm: a script of another name.
    await mkdir(path.join(base, "corepack/dist"), { recursive: true });
    await mkdir(path.join(base, "corepack/bin"), { recursive: true });
    await writeFile(path.join(base, "corepack/dist/npm.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
    await symlink("../dist/npm.js", path.join(base, "corepack/bin/npm"));
    // A node that is a version manager's script.
    await mkdir(path.join(base, "nodeshim"), { recursive: true });
    await writeFile(path.join(base, "nodeshim/node"), '#!/bin/sh\nexec ./runtime "$@"\n', { mode: 0o755 });
  });

  it("runs unasked when npm is npm's own script and node is native", () => {
    const searchPath = `${path.join(prefix, "bin")}:/usr/bin:/bin`;
    expect(decide("npm --version", searchPath)).toBeUndefined();
    expect(decide("npm -v", searchPath)).toBeUndefined();
  });

  // npx-cli.js runs `npm exec`, which answers --version (-v) before anything else; `npx -V` is
  // `npm exec` with an unknown option, which starts a shell.
  it("npx --version and -v run unasked when npx is npm's own script; npx -V asks", async () => {
    await writeFile(path.join(prefix, "lib/node_modules/npm/bin/npx-cli.js"), "#!/usr/bin/env node\n", {
      mode: 0o755,
    });
    await symlink("../lib/node_modules/npm/bin/npx-cli.js", path.join(prefix, "bin/npx"));
    const searchPath = `${path.join(prefix, "bin")}:/usr/bin:/bin`;
    expect(decide("npx --version", searchPath)).toBeUndefined();
    expect(decide("npx -v", searchPath)).toBeUndefined();
    expect(decide("npx -V", searchPath)).toMatch(/"npx" in .* is a script/);
    expect(decide("npx --version", `${path.join(base, "nodeshim")}:${path.join(prefix, "bin")}`)).toMatch(
      /"node" in .*nodeshim" is a script/,
    );
  });

  it.each([
    ["npm --help", () => `${path.join(prefix, "bin")}:/usr/bin`, /"npm" in .* is a script/],
    ["npm version", () => `${path.join(prefix, "bin")}:/usr/bin`, /"npm" in .* is a script/],
    [
      "npm --version",
      () => `${path.join(base, "nodeshim")}:${path.join(prefix, "bin")}`,
      /"node" in .*nodeshim" is a script/,
    ],
    [
      "npm --version",
      () => `${path.join(base, "corepack/bin")}:/usr/bin`,
      /"npm" in .* is a script|another program/,
    ],
  ])("%s with PATH %# asks", (command, searchPath, reason) => {
    expect(decide(command, searchPath())).toMatch(reason);
  });
});

// A nodenv shim runs `$NODENV_ROOT/versions/<v>/bin/<program>` for the version the nearest
// .node-version (or NODENV_VERSION, or nodenv's global file) names. The fake nodenv below does
// what nodenv exec does with that file, so plain bash shows what the folder makes it run.
describe("a nodenv shim asked for its version", () => {
  let nroot: string;
  const saved = {
    version: process.env.NODENV_VERSION,
    dir: process.env.NODENV_DIR,
    hooks: process.env.NODENV_HOOK_PATH,
  };
  const shims = (): string => `${path.join(nroot, "shims")}:/usr/bin:/bin`;
  const nodenvShim = (): string =>
    [
      "#!/usr/bin/env bash",
      "set -e",
      '[ -n "$NODENV_DEBUG" ] && set -x',
      "",
      'program="${0##*/}"',
      "",
      `export NODENV_ROOT="${nroot}"`,
      `exec "${nroot}/libexec/nodenv" exec "$program" "$@"`,
      "",
    ].join("\n");

  beforeAll(async () => {
    delete process.env.NODENV_VERSION;
    delete process.env.NODENV_DIR;
    delete process.env.NODENV_HOOK_PATH;
    nroot = path.join(base, "nodenv");
    for (const dir of [
      "shims",
      "libexec",
      "versions/22.1.0/bin",
      "versions/scripted/bin",
      "versions/22.1.0/lib/node_modules/npm/bin",
    ])
      await mkdir(path.join(nroot, dir), { recursive: true });
    for (const program of ["node", "npm", "npx"])
      await writeFile(path.join(nroot, "shims", program), nodenvShim(), { mode: 0o755 });
    await writeFile(
      path.join(nroot, "libexec/nodenv"),
      '#!/bin/sh\nv=$(cat .node-version 2>/dev/null || cat "$NODENV_ROOT/version")\nv=${v#node-}\nprogram=$2\nshift 2\nexec "$NODENV_ROOT/versions/${v#v}/bin/$program" "$@"\n',
      { mode: 0o755 },
    );
    await copyFile(NATIVE, path.join(nroot, "versions/22.1.0/bin/node"));
    await writeFile(
      path.join(nroot, "versions/22.1.0/lib/node_modules/npm/bin/npm-cli.js"),
      "#!/usr/bin/env node\nrequire('../lib/cli.js')(process)\n",
      { mode: 0o755 },
    );
    await symlink("../lib/node_modules/npm/bin/npm-cli.js", path.join(nroot, "versions/22.1.0/bin/npm"));
    await writeFile(path.join(nroot, "versions/scripted/bin/node"), `#!/bin/sh\ntouch ${marker()}\n`, {
      mode: 0o755,
    });
    await writeFile(path.join(nroot, "version"), "22.1.0\n");
  });

  afterAll(() => {
    for (const [name, value] of [
      ["NODENV_VERSION", saved.version],
      ["NODENV_DIR", saved.dir],
      ["NODENV_HOOK_PATH", saved.hooks],
    ] as const)
      if (value !== undefined) process.env[name] = value;
  });

  it("runs what the folder's .node-version picks (plain bash), and asks when that is no native node", async () => {
    await writeFile(path.join(ws, ".node-version"), "scripted\n");
    try {
      spawnSync("/bin/bash", ["-c", "node --version"], { cwd: ws, env: { ...process.env, PATH: shims() } });
      expect(existsSync(marker()), "plain bash did not run the version the folder picked").toBe(true);
      expect(decide("node --version", shims())).toMatch(
        /"node" is nodenv's stand-in: version "scripted" runs ".*scripted\/bin\/node", which is not a native node/,
      );
    } finally {
      await rm(marker(), { force: true });
      await rm(path.join(ws, ".node-version"));
    }
  });

  it.each([
    ["22.1.0", "node --version"],
    ["v22.1.0", "node -v"],
    ["node-22.1.0", "node --version"],
    ["22.1.0", "npm --version"],
    ["22.1.0", "npx --version"],
  ])("runs unasked when .node-version says %j, an installed native node: %s", async (content, command) => {
    if (command.startsWith("npx"))
      await symlink("../lib/node_modules/npm/bin/npx-cli.js", path.join(nroot, "versions/22.1.0/bin/npx"));
    await writeFile(
      path.join(nroot, "versions/22.1.0/lib/node_modules/npm/bin/npx-cli.js"),
      "#!/usr/bin/env node\n",
      { mode: 0o755 },
    );
    await writeFile(path.join(ws, ".node-version"), `${content}\n`);
    try {
      const plain = spawnSync("/bin/bash", ["-c", command], {
        cwd: ws,
        env: { ...process.env, PATH: shims() },
      });
      expect(plain.status, `plain bash: ${String(plain.stderr)}`).toBe(0);
      expect(decide(command, shims())).toBeUndefined();
    } finally {
      await rm(path.join(ws, ".node-version"));
      await rm(path.join(nroot, "versions/22.1.0/bin/npx"), { force: true });
    }
  });

  it.each([
    ["system", /names no version nodenv takes, so it runs the "system" one/],
    ["../../ws/evil", /names no version nodenv takes/],
    ["", /names no version nodenv takes/],
    ["23.0.0", /the version .* names is not installed/],
    ["ghp_NotAVersion1234", /the version .* names is not installed \(nodenv would print the name\)/],
  ])("asks when .node-version says %j", async (content, reason) => {
    await writeFile(path.join(ws, ".node-version"), `${content}\n`);
    try {
      const why = decide("node --version", shims());
      expect(why).toMatch(reason);
      expect(why).not.toContain("ghp_");
    } finally {
      await rm(path.join(ws, ".node-version"));
    }
  });

  it("asks when a hook may pick the version (a plugin such as nodenv-package-json-engine), or for another program", async () => {
    const hooks = path.join(nroot, "plugins/nodenv-package-json-engine/etc/nodenv.d/version-name");
    await mkdir(hooks, { recursive: true });
    await writeFile(path.join(hooks, "package-json-engine.bash"), "NODENV_VERSION=from-package-json\n");
    try {
      expect(decide("node --version", shims())).toMatch(
        /the hooks in .*version-name" may pick another version/,
      );
    } finally {
      await rm(path.join(nroot, "plugins"), { recursive: true });
    }
    expect(decide("node --version", shims())).toBeUndefined();
    expect(decide("node --help", shims())).toMatch(/is a script/);
    process.env.NODENV_DIR = base;
    try {
      expect(decide("node --version", shims())).toMatch(/NODENV_DIR is set/);
    } finally {
      delete process.env.NODENV_DIR;
    }
  });
});

// asdf and mise pick what to run with code Lathe does not follow (asdf's plugin scripts, a
// `path:` version; mise.toml's templates and hooks): their version queries keep asking, and the
// reason names the version manager.
describe("an asdf or mise stand-in asked for its version", () => {
  it("asdf: .tool-versions may name path:<folder>, whose program the shim runs (plain bash); it asks", async () => {
    const asdf = path.join(base, "asdf");
    await mkdir(path.join(asdf, "shims"), { recursive: true });
    await mkdir(path.join(asdf, "bin"), { recursive: true });
    // asdf exec as it treats a path: version: the program in that folder's bin.
    await writeFile(
      path.join(asdf, "bin/asdf"),
      '#!/bin/sh\nv=$(sed -n "s/^nodejs path://p" .tool-versions)\nshift\nprogram=$1\nshift\nexec "$v/bin/$program" "$@"\n',
      { mode: 0o755 },
    );
    await writeFile(
      path.join(asdf, "shims/node"),
      `#!/usr/bin/env bash\n# asdf-plugin: nodejs 22.1.0\nexec ${asdf}/bin/asdf exec "node" "$@" # asdf_allow: ' asdf '\n`,
      { mode: 0o755 },
    );
    await mkdir(path.join(ws, "evil/bin"), { recursive: true });
    await writeFile(path.join(ws, "evil/bin/node"), `#!/bin/sh\ntouch ${marker()}\n`, { mode: 0o755 });
    await writeFile(path.join(ws, ".tool-versions"), `nodejs path:${path.join(ws, "evil")}\n`);
    const searchPath = `${path.join(asdf, "shims")}:/usr/bin:/bin`;
    try {
      spawnSync("/bin/bash", ["-c", "node --version"], {
        cwd: ws,
        env: { ...process.env, PATH: searchPath },
      });
      expect(existsSync(marker()), "plain bash did not run the path: version's node").toBe(true);
      expect(decide("node --version", searchPath)).toMatch(
        /"node" in .* is asdf's stand-in: it runs what the asdf plugin's own scripts pick/,
      );
    } finally {
      await rm(marker(), { force: true });
      await rm(path.join(ws, ".tool-versions"));
      await rm(path.join(ws, "evil/bin/node"));
    }
  });

  it("mise: a shim that is a link to mise itself asks, saying mise picks the version", async () => {
    const mise = path.join(base, "mise");
    await mkdir(path.join(mise, "shims"), { recursive: true });
    await copyFile(NATIVE, path.join(mise, "mise"));
    await symlink(path.join(mise, "mise"), path.join(mise, "shims/node"));
    expect(decide("node --version", `${path.join(mise, "shims")}:/usr/bin`)).toMatch(
      /"node" in .* is mise's stand-in .*mise\.toml may run commands of its own/,
    );
  });
});
