import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { mkdir, mkdtemp, realpath, rename, rm, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import type { Session } from "../src/main/engine/session/session.ts";
import { MAX_ENTRIES_SEEN } from "../src/main/engine/policy/mentioned-paths.ts";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";

// With the OS sandbox off, a bash command the analysis proves read-only runs unasked and
// unconfined. It must then run the system's programs and reach no network, and what it reads
// must be what the sandbox would have let it read: not a path
// under `sandbox.denyRead` (~/.ssh by default), however the command spells or reaches it, and
// not another process's environment (Lathe's own holds the provider keys it withholds from
// bash). Each row is first shown to print the secret under plain bash in the same layout (the
// positive control); through Lathe, headless and in yolo mode with every bash command allowed,
// it is refused and the secret is not in what comes back.

const KEY = "PRIVATE-KEY-MATERIAL-7f3a";
const ENV_VALUE = "provider-key-value-9c1e";
const ENV_NAME = "LATHE_READS_TEST_API_KEY";

interface Layout {
  base: string;
  ws: string;
  home: string;
  lh: string;
}

async function createLayout(): Promise<Layout> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-off-reads-")));
  const l = {
    base,
    ws: path.join(base, "ws"),
    home: path.join(base, "home"),
    lh: path.join(base, "lh"),
  };
  for (const dir of [l.ws, path.join(l.home, ".ssh"), l.lh]) await mkdir(dir, { recursive: true });
  await writeFile(path.join(l.home, ".ssh/id_ed25519"), `${KEY}\n`);
  await writeFile(path.join(l.ws, "README.md"), "# hello\n");
  // A file of names, as a model could write one in the workspace with the write tool.
  await writeFile(path.join(l.ws, "names.txt"), `${path.join(l.home, ".ssh/id_ed25519")}\n`);
  await writeFile(path.join(l.ws, "names0"), `${path.join(l.home, ".ssh/id_ed25519")}\0`);
  // A link a cloned repository could hold: a file in the workspace that is the key.
  await mkdir(path.join(l.ws, "docs"));
  await symlink(path.join(l.home, ".ssh/id_ed25519"), path.join(l.ws, "docs/key.txt"));
  // And one to the home folder, which holds ~/.ssh.
  await symlink(l.home, path.join(l.ws, "homelink"));
  // More files than the globs of one call are expanded over (MAX_ENTRIES_SEEN).
  await mkdir(path.join(l.ws, "many"));
  for (let i = 0; i <= MAX_ENTRIES_SEEN; i += 1000)
    await Promise.all(
      Array.from({ length: 1000 }, (_, j) => writeFile(path.join(l.ws, "many", `f${i + j}`), "")),
    );
  spawnSync("git", ["init", "-q", l.ws]);
  return l;
}

/** Command lines that print the key or the key variable under plain bash (`$HOME` is the fake home). */
const ROWS: string[] = [
  // The key named in ways the policy's path check cannot see.
  "cat $HOME/.ssh/id_ed25519",
  'cat "${HOME}/.ssh/id_ed25519"',
  "cat ~/'.ssh'/id_ed25519",
  "x=~/.ssh/id_ed25519; cat $x",
  "for f in ~/.ssh/*; do cat $f; done",
  "bash -c 'cat $HOME/.ssh/id_ed25519'",
  // The folder changed first.
  "cd ~ && cat .ssh/id_ed25519",
  "cd; cat .ssh/id_ed25519",
  "pushd ~ > /dev/null; cat .ssh/id_ed25519",
  "cd $HOME; cat .ssh/id_ed25519",
  "sh -c 'cd; cat .ssh/id_ed25519'",
  // Names read at run time.
  "xargs cat < names.txt",
  "xargs -a names.txt head",
  // The file as a short option's attached value (getopt reads `-a<file>` as `-a <file>`).
  "xargs -adocs/key.txt echo",
  "xargs -0adocs/key.txt echo",
  "sort --files0-from=names0",
  // The same options by a prefix, as getopt takes them.
  "sort --files0=names0",
  "sort --files=names0",
  "sed '1r docs/key.txt' README.md",
  // awk reads the files ARGV holds after BEGIN, which the program may change.
  `awk 'BEGIN { ARGV[1] = "docs/key.txt" } 1' README.md`,
  `awk 'BEGIN { sub(/README.md/, "docs/key.txt", ARGV[1]) } 1' README.md`,
  'sed "1r $HOME/.ssh/id_ed25519" README.md',
  "find docs -name '*.txt' -exec cat {} \\;",
  "find docs | xargs grep -h PRIVATE",
  // Whole folders holding the key.
  "grep -r PRIVATE ~",
  "grep -rh PRIVATE ~/",
  "cd ~ && grep -rh PRIVATE",
  "cd ~ && git grep --no-ind -h PRIVATE",
  "rg --hidden --no-ignore -N PRIVATE ~",
  "grep -R PRIVATE docs",
  "grep -rh --deref PRIVATE .",
  "grep -rh --dereference-rec PRIVATE .",
  // Recursion asked for by a prefix of the option, or of -d's action (grep takes both).
  "grep --rec PRIVATE homelink",
  "grep --dir=recurse PRIVATE homelink",
  "grep --directories=rec PRIVATE homelink",
  "grep -d rec PRIVATE homelink",
  "diff --rec -N homelink docs",
  "grep -rh PRIVATE homelink",
  // gzip -r reads every file below a folder; with -f, those not compressed as they are, through links.
  "zcat -rf homelink",
  "gunzip -crf .",
  "zcat -f --rec homelink/",
  "zstd -dcfr homelink",
  // File names read from a file (xz --files, zstd --filelist), printed as they are with -f.
  "xzcat -f --files=names.txt",
  "zstd -dcf --filelist=names.txt",
  // A variable naming the file a reader reads: file's magic patterns (it prints the lines it
  // cannot read), bzip2's and xz's options (file names and --files too).
  "MAGIC=docs/key.txt file README.md 2>&1",
  "BZIP2=docs/key.txt bzip2 -c README.md | bzip2 -dc",
  "BZIP=docs/key.txt bzip2 -c README.md | bzip2 -dc",
  "XZ_OPT=--files=names.txt xzcat -f",
  "rg --hidden --no-ignore -N PRIVATE homelink/",
  // /proc/self/cwd is the command's folder for the command, Lathe's own for the check.
  "cat /proc/self/cwd/homelink/.ssh/id_ed25519",
  "grep -h PRIVATE /proc/thread-self/cwd/homelink/.ssh/*",
  "cd /proc/self/cwd/homelink/.ssh && cat id_ed25519",
  // A glob past what the policy expands, then the link.
  "cat many/* docs/key.tx?",
  // Another process's environment: this test's own, which Lathe's bash does not inherit.
  `ps axeww | grep -o '${ENV_NAME}=[a-z0-9-]*'`,
  `grep -aho '${ENV_NAME}=[a-z0-9-]*' /proc/*/environ`,
  // Another process's command line: a server started with its key as an argument (as a stdio
  // MCP server's "args" from settings no command may read).
  "ps auxww",
  "ps -efww | grep api-key",
  "ps -eo pid,args",
  "pgrep -af api-key",
  "pgrep --list-fu -f api-key",
];

/** A process started with the key as an argument, as a stdio MCP server's "args" may hold one. */
let argvHolder: ReturnType<typeof spawn> | undefined;

const leaked = (text: string): boolean => text.includes(KEY) || text.includes(ENV_VALUE);
const text = (e: Envelope): string => (e.type === "error" ? e.error_text : JSON.stringify(e.data));
const hasRg = spawnSync("sh", ["-c", "command -v rg"]).status === 0;
/** Readers outside bash's own command list that the first suite's settings add (see beforeAll). */
const WIDENED_SHELL = ["zstd", "xzcat", "bzip2", "dir", "vdir", "zgrep", "nm", "objdump", "java", "deno"];

/** Programs a row needs that may not be installed everywhere. */
const OPTIONAL_PROGRAMS = ["zstd", "xzcat", "bzip2", "file"];
const skipped = (row: string): boolean => {
  if (row.startsWith("rg ") && !hasRg) return true;
  const missing = OPTIONAL_PROGRAMS.find(
    (p) => row.includes(`${p} `) && spawnSync("sh", ["-c", `command -v ${p}`]).status !== 0,
  );
  if (missing !== undefined) console.log(`skipped "${row}": ${missing} is not installed here`);
  return missing !== undefined;
};

/** A sandbox-off engine on a temp folder, every bash command allowed, HOME its `home` until close. */
interface SandboxOff {
  base: string;
  ws: string;
  home: string;
  engine: Engine;
  session: Session;
  close(): Promise<void>;
}

/**
 * Make `ws`, `home` and Lathe's home below a fresh temp folder named `prefix…` (with `withKey`,
 * `home/.ssh/id_ed25519` holding KEY), point HOME at `home`, and open a yolo session in an engine
 * with the sandbox off and every bash command allowed.
 */
async function openSandboxOff(prefix: string, withKey: boolean): Promise<SandboxOff> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  const ws = path.join(base, "ws");
  const home = path.join(base, "home");
  const lh = path.join(base, "lh");
  for (const dir of [ws, withKey ? path.join(home, ".ssh") : home, lh]) await mkdir(dir, { recursive: true });
  if (withKey) await writeFile(path.join(home, ".ssh/id_ed25519"), `${KEY}\n`);
  await writeFile(
    path.join(lh, "settings.json"),
    JSON.stringify({
      permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
      sandbox: { enabled: false },
    }),
  );
  const realHome = process.env.HOME;
  process.env.HOME = home;
  const engine = await Engine.create({ root: ws, latheHome: lh });
  const session = await engine.openSession({ mode: "yolo" });
  return {
    base,
    ws,
    home,
    engine,
    session,
    async close() {
      await engine.close();
      process.env.HOME = realHome;
      await rm(base, { recursive: true, force: true });
    },
  };
}

describe("sandbox off: a read-only command reads nothing the sandbox would hide, and runs nothing else", () => {
  let l: Layout;
  let engine: Engine;
  let session: Session;
  let realHome: string | undefined;

  beforeAll(async () => {
    l = await createLayout();
    realHome = process.env.HOME;
    process.env.HOME = l.home;
    process.env[ENV_NAME] = ENV_VALUE;
    argvHolder = spawn(
      process.execPath,
      ["-e", "setTimeout(() => {}, 120_000)", "--", `--api-key=${ENV_VALUE}`],
      {
        stdio: "ignore",
      },
    );
    await writeFile(
      path.join(l.lh, "settings.json"),
      JSON.stringify({
        permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
        sandbox: { enabled: false },
        // Readers a person may add to the commands bash runs: the read-only list knows them.
        shell: WIDENED_SHELL.map((cmd) => ({ cmd })),
      }),
    );
    engine = await Engine.create({ root: l.ws, latheHome: l.lh });
    session = await engine.openSession({ mode: "yolo" });
  });

  afterAll(async () => {
    argvHolder?.kill();
    await engine.close();
    process.env.HOME = realHome;
    delete process.env[ENV_NAME];
    await rm(l.base, { recursive: true, force: true });
  });

  it.each(ROWS.map((row) => [row] as const))("%s", async (command) => {
    if (skipped(command)) return;
    // Positive control: plain bash, in the workspace, with the same home and environment.
    const plain = spawnSync("/bin/bash", ["-c", command], {
      cwd: l.ws,
      env: { ...process.env, HOME: l.home, [ENV_NAME]: ENV_VALUE },
      encoding: "utf8",
    });
    expect(leaked(plain.stdout), `plain bash did not print the secret: ${plain.stderr}`).toBe(true);

    const envelope = await session.call("bash", { command, timeout_ms: 20_000 });
    expect(leaked(text(envelope)), `Lathe let it print the secret: ${text(envelope)}`).toBe(false);
    expect(envelope.type, text(envelope)).toBe("error");
    expect(text(envelope)).toMatch(
      /needs approval and this host cannot ask anyone.*not provably read-only|commands may not read: ~\/\.ssh|matches more files than Lathe checks|reads the folder \S+ as a whole/,
    );
  });

  // Names, not contents: a lister that follows a link into the home folder prints what is in
  // it (.ssh) and below it (id_ed25519), as `find ~/.ssh` would.
  it.each(
    [
      "find -L homelink -maxdepth 2",
      "find -H homelink -maxdepth 2",
      "find homelink -follow -maxdepth 2",
      "find homelink/ -maxdepth 2",
      "find homelink/ -maxdepth 1 -maxdepth 2",
      "find -L . -maxdepth 2 -name .ssh",
      "find . -maxdepth 2 -follow -name .ssh",
      "ls -aR homelink/",
      // getopt takes a prefix of a long option for it.
      "ls -a --rec homelink/",
      "ls -aRL . | grep -A3 homelink/",
      // dir and vdir are ls.
      "dir -aR homelink/",
      "vdir -a --rec homelink/",
      "du -aL --max-depth=2 .",
      "du -a homelink/",
      // --dereference-args by a prefix getopt takes: du follows the link it is given.
      "du -a --dereference-a homelink",
      "du -a --dereference-args homelink",
      // -f prints each name with its path, as find does.
      "tree -a -l -f .",
    ].map((row) => [row] as const),
  )("%s lists the home folder through the link", async (command) => {
    const program = command.split(" ")[0] as string;
    if (spawnSync("sh", ["-c", `command -v ${program}`]).status !== 0) {
      console.log(`skipped "${command}": ${program} is not installed here`);
      return;
    }
    const plain = spawnSync("/bin/bash", ["-c", command], {
      cwd: l.ws,
      env: { ...process.env, HOME: l.home },
      encoding: "utf8",
    });
    // tree -f names what is below a link it follows by the link's target.
    const listsSsh = /homelink\/\.ssh|\/\.ssh\/id_ed25519/;
    expect(plain.stdout, `plain bash did not list ~/.ssh: ${plain.stderr}`).toMatch(listsSsh);
    const envelope = await session.call("bash", { command, timeout_ms: 20_000 });
    expect(text(envelope), "Lathe let it list ~/.ssh").not.toMatch(listsSsh);
    expect(envelope.type, text(envelope)).toBe("error");
    expect(text(envelope)).toMatch(
      /not provably read-only \("[a-z]+ [^"]+" follows every symbolic link it meets|reads the folder \S+ as a whole, and it is a link to ~/,
    );
  });

  // Stopped at the first level, a lister given the link (or following every link) prints what
  // `ls -a homelink/` prints, which runs: the names in the home folder, .ssh among them, and
  // nothing inside .ssh. Deeper, it is refused above.
  it.each([
    ["find homelink/ -maxdepth 1", "find", ".ssh"],
    ["find -L homelink -maxdepth 1", "find", ".ssh"],
    ["find -H homelink -maxdepth 1", "find", ".ssh"],
    ["find homelink -follow -maxdepth 1", "find", ".ssh"],
    // The link itself, looked at where it leads (a folder), as `ls -L` does.
    ["find -L . -maxdepth 1 -type d", "find", "homelink"],
    ["tree -a -L 1 homelink/", "tree", ".ssh"],
  ])("%s lists only what ls lists through the link, and runs", async (command, program, shows) => {
    if (spawnSync("sh", ["-c", `command -v ${program}`]).status !== 0) {
      console.log(`skipped "${command}": ${program} is not installed here`);
      return;
    }
    const ls = await session.call("bash", { command: "ls -a homelink/" });
    expect(ls.type, text(ls)).toBe("output");
    expect(text(ls)).toContain(".ssh");
    const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
    expect(plain.stdout, `plain bash did not go through the link: ${plain.stderr}`).toContain(shows);
    expect(plain.stdout, "plain bash listed inside ~/.ssh").not.toContain("id_ed25519");
    const envelope = await session.call("bash", { command });
    expect(envelope.type, text(envelope)).toBe("output");
    expect(text(envelope)).toContain(shows);
    expect(text(envelope)).not.toContain("id_ed25519");
  });

  // These print what they learn of the key (its size, whether a checksum matches) beside its
  // name, read from a file of names given by a prefix of the option (getopt takes `--files0`
  // for `--files0-from`, `--che` for `--check`).
  it.each(["wc -c --files0=names0", "du -a --files0-f names0", "md5sum --che sums", "sha256sum --ch sums"])(
    "%s, reading the key named in a file, is refused",
    async (command) => {
      const sums = path.join(l.ws, "sums");
      const digits = command.startsWith("md5") ? 32 : 64;
      await writeFile(sums, `${"0".repeat(digits)}  ${path.join(l.home, ".ssh/id_ed25519")}\n`);
      try {
        const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
        expect(plain.stdout, `plain bash did not read the key: ${plain.stderr}`).toMatch(
          /\.ssh\/id_ed25519(: FAILED)?\n/,
        );
        const envelope = await session.call("bash", { command });
        expect(envelope.type, text(envelope)).toBe("error");
        expect(text(envelope)).not.toContain("id_ed25519");
        expect(text(envelope)).toMatch(/reads the names of the files it reads from another file/);
      } finally {
        await rm(sums);
      }
    },
  );

  // tar -T reads member names from a file, and options among them: a line naming the key with
  // --files-from makes tar print each line of the key as a member not found.
  it.each(["tar tf b.tar -T list", "tar -tf b.tar --files-f=list", "tar tfT b.tar list"])(
    "%s, reading a file of names that names the key, is refused",
    async (command) => {
      const list = path.join(l.ws, "list");
      await writeFile(list, `--files-from=${path.join(l.home, ".ssh/id_ed25519")}\n`);
      spawnSync("tar", ["cf", "b.tar", "README.md"], { cwd: l.ws });
      try {
        const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
        expect(plain.stderr, "plain bash did not print the key").toContain(KEY);
        const envelope = await session.call("bash", { command });
        expect(text(envelope), "Lathe let it print the key").not.toContain(KEY);
        expect(envelope.type, text(envelope)).toBe("error");
        expect(text(envelope)).toMatch(/reads the names of the files it reads from another file/);
        const listed = await session.call("bash", { command: "tar tf b.tar" });
        expect(text(listed)).toContain("README.md");
      } finally {
        await rm(list);
        await rm(path.join(l.ws, "b.tar"));
      }
    },
  );

  // Lathe expands globs as bash does by default; a shell option that lets them match hidden or
  // differently cased names (or cross folders) makes the command match what Lathe did not check.
  it.each([
    "shopt -s dotglob; cat homelink/*/*",
    "shopt -s nocaseglob; cat homelink/.SS[H]/*",
    "shopt -s globstar dotglob; grep -h PRIVATE homelink/**/id*",
    "bash -O dotglob -c 'cat homelink/*/*'",
    "bash -O nocaseglob -c 'sort homelink/.S*/*'",
  ])("%s, a glob matching ~/.ssh under a shell option, is refused", async (command) => {
    const plain = spawnSync("/bin/bash", ["-c", command], {
      cwd: l.ws,
      env: { ...process.env, HOME: l.home },
      encoding: "utf8",
    });
    expect(plain.stdout, `plain bash did not print the key: ${plain.stderr}`).toContain(KEY);
    const envelope = await session.call("bash", { command });
    expect(text(envelope), "Lathe let it print the key").not.toContain(KEY);
    expect(envelope.type, text(envelope)).toBe("error");
    expect(text(envelope)).toMatch(
      /with (dotglob|nocaseglob|globstar) changes what every later glob matches/,
    );
  });

  // With brace expansion off, `{a,b}` is a file name as written: a committed link so named reads
  // the key, while Lathe checks a and b. (With globbing off, `[k]` is checked as written too.)
  it.each([
    "set +B; cat {a,b}",
    "set +o braceexpand; cat {a,b}",
    "shopt -u -o braceexpand; cat {a,b}",
    "bash +B -c 'cat {a,b}'",
    "set -f; cat [k]",
  ])("%s, reading a link named as the pattern, is refused", async (command) => {
    const links = ["[k]", "{a,b}"].map((name) => path.join(l.ws, name));
    for (const link of links) await symlink(path.join(l.home, ".ssh/id_ed25519"), link);
    // What Lathe expands them to: plain files.
    const plainFiles = ["k", "a", "b"].map((name) => path.join(l.ws, name));
    for (const file of plainFiles) await writeFile(file, "plain\n");
    try {
      const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
      expect(plain.stdout, `plain bash did not print the key: ${plain.stderr}`).toContain(KEY);
      const envelope = await session.call("bash", { command });
      expect(text(envelope), "Lathe let it print the key").not.toContain(KEY);
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(
        command.includes("[k]")
          ? /commands may not read: ~\/\.ssh/
          : /turns brace expansion off, so \{a,b\} names the file/,
      );
    } finally {
      for (const file of [...links, ...plainFiles]) await rm(file, { force: true });
    }
  });

  it("set -euo pipefail, which leaves expansion on, still runs", async () => {
    const envelope = await session.call("bash", { command: "set -euo pipefail; cat README.md" });
    expect(envelope.type, text(envelope)).toBe("output");
  });

  it("a shell option that leaves globs as they are still runs (shopt -s nullglob; ls)", async () => {
    const envelope = await session.call("bash", { command: "shopt -s nullglob; ls README.md" });
    expect(envelope.type, text(envelope)).toBe("output");
  });

  it("does not reach the network unasked (git ls-remote)", async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const command = `git ls-remote http://127.0.0.1:${(server.address() as AddressInfo).port}/r.git`;
    try {
      // Asynchronously: the server answers in this process.
      await new Promise((resolve) =>
        spawn("/bin/bash", ["-c", command], { cwd: l.ws, stdio: "ignore", timeout: 10_000 }).on(
          "close",
          resolve,
        ),
      );
      expect(connections, "plain bash did not connect").toBeGreaterThan(0);
      const before = connections;
      const envelope = await session.call("bash", { command, timeout_ms: 10_000 });
      expect(text(envelope)).toMatch(/not provably read-only.*over the network/);
      expect(connections).toBe(before);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("does not run a workspace program for a read-only name found through a relative PATH entry", async () => {
    await mkdir(path.join(l.ws, "bin"), { recursive: true });
    const marker = path.join(l.base, "ran-fake-cat");
    await writeFile(path.join(l.ws, "bin/cat"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const searchPath = `bin:${process.env.PATH ?? ""}`;
    spawnSync("/bin/bash", ["-c", "cat README.md"], { cwd: l.ws, env: { ...process.env, PATH: searchPath } });
    expect(existsSync(marker), "plain bash did not run bin/cat").toBe(true);
    await rm(marker);
    const saved = process.env.PATH;
    process.env.PATH = searchPath;
    try {
      const envelope = await session.call("bash", { command: "cat README.md" });
      expect(text(envelope)).toMatch(/not provably read-only.*PATH holds "bin"/);
    } finally {
      process.env.PATH = saved;
      await rm(path.join(l.ws, "bin"), { recursive: true });
    }
    expect(existsSync(marker)).toBe(false);
  });

  // A reader told to run a workspace file: bash's startup file, the grep zgrep runs, nm's plugin
  // (a shared library). Each runs unconfined under plain bash; Lathe asks first.
  it.each([
    ["bash --init-file ./startup -ic true", /"bash --init-file" runs the startup file/, "bash"],
    ["bash --rcfile startup -i -c true", /"bash --rcfile" runs the startup file/, "bash"],
    ["GREP=./prog.sh zgrep hello README.md", /setting GREP names the program zgrep runs/, "zgrep"],
    // A lesskey file's #env section sets LESSOPEN, which less runs on the file.
    ["LESSKEYIN=keys less -F README.md", /setting LESSKEYIN makes less read key bindings/, "less"],
    ["less --lesskey-src=keys -F README.md", /"less --lesskey-src=keys" reads key bindings/, "less"],
    ["less --lesskey-s keys -F README.md", /"less --lesskey-s" reads key bindings/, "less"],
    ["nm --plugin ./plugin.so a.o", /"nm --plugin" may write files or run programs/, "gcc nm"],
    ["nm --plug=./plugin.so a.o", /"nm --plug=\.\/plugin\.so" may write files/, "gcc nm"],
    // java loads the agent its launcher's variable names, with --version too.
    ["JDK_JAVA_OPTIONS=-agentpath:./plugin.so java --version", /setting JDK_JAVA_OPTIONS/, "gcc java"],
  ])("does not run the workspace file %s names", async (command, reason, needs) => {
    const missing = needs.split(" ").find((p) => spawnSync("sh", ["-c", `command -v ${p}`]).status !== 0);
    if (missing !== undefined) {
      console.log(`skipped "${command}": ${missing} is not installed here`);
      return;
    }
    const marker = path.join(l.base, "ran-workspace-file");
    const made = ["startup", "prog.sh", "keys", "plugin.c", "plugin.so", "a.c", "a.o"].map((f) =>
      path.join(l.ws, f),
    );
    await writeFile(path.join(l.ws, "startup"), `: > ${marker}\n`);
    await writeFile(path.join(l.ws, "keys"), "#env\nLESSOPEN=|./prog.sh %s\n");
    await writeFile(path.join(l.ws, "prog.sh"), `#!/bin/sh\n: > ${marker}\n`, { mode: 0o755 });
    if (command.includes("plugin.so")) {
      await writeFile(
        path.join(l.ws, "plugin.c"),
        `#include <stdio.h>\n__attribute__((constructor)) static void ran(void) { FILE *f = fopen("${marker}", "w"); if (f) fclose(f); }\n`,
      );
      await writeFile(path.join(l.ws, "a.c"), "int main(void) { return 0; }\n");
      spawnSync("gcc", ["-shared", "-fPIC", "-o", "plugin.so", "plugin.c"], { cwd: l.ws });
      spawnSync("gcc", ["-c", "-o", "a.o", "a.c"], { cwd: l.ws });
    }
    try {
      spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, stdio: "ignore" });
      expect(existsSync(marker), "plain bash did not run the workspace file").toBe(true);
      await rm(marker);
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(reason);
      expect(existsSync(marker), "Lathe ran the workspace file").toBe(false);
    } finally {
      for (const file of [...made, marker]) await rm(file, { force: true });
    }
  });

  // objdump -S prints the source files an object's debug information names: one committed to a
  // repository can name the key (gcc's #line directive does).
  it.each(["objdump -S d.o", "objdump -dS d.o", "objdump --source-comment d.o"])(
    "%s, printing a source file the object names, is refused",
    async (command) => {
      if (spawnSync("sh", ["-c", "command -v gcc && command -v objdump"]).status !== 0) {
        console.log(`skipped "${command}": gcc or objdump is not installed here`);
        return;
      }
      const source = path.join(l.ws, "d.c");
      await writeFile(
        source,
        `#line 1 "${path.join(l.home, ".ssh/id_ed25519")}"\nint f(int x) { return x + 1; }\n`,
      );
      try {
        spawnSync("gcc", ["-gdwarf-4", "-c", "-o", "d.o", "d.c"], { cwd: l.ws });
        await rm(source);
        const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
        expect(plain.stdout, `plain bash did not print the key: ${plain.stderr}`).toContain(KEY);
        const envelope = await session.call("bash", { command });
        expect(text(envelope), "Lathe let it print the key").not.toContain(KEY);
        expect(envelope.type, text(envelope)).toBe("error");
        expect(text(envelope)).toMatch(/reads the names of the files it reads from another file/);
        const listed = await session.call("bash", { command: "objdump -d d.o" });
        expect(listed.type, text(listed)).toBe("output");
      } finally {
        await rm(source, { force: true });
        await rm(path.join(l.ws, "d.o"), { force: true });
      }
    },
  );

  // git config --includes follows a chosen file's include.path: one in the workspace can include
  // an INI file in a hidden folder (~/.aws/credentials is one), which git config then prints.
  it.each(["git config --file x.cfg --includes --list", "git config -f x.cfg --inc --get default.secret"])(
    "%s, printing a hidden file the config includes, is refused",
    async (command) => {
      const included = path.join(l.home, ".ssh/credentials");
      await writeFile(included, `[default]\n\tsecret = ${KEY}\n`);
      await writeFile(path.join(l.ws, "x.cfg"), `[include]\n\tpath = ${included}\n`);
      try {
        const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
        expect(plain.stdout, `plain bash did not print the secret: ${plain.stderr}`).toContain(KEY);
        const envelope = await session.call("bash", { command });
        expect(text(envelope), "Lathe let it print the secret").not.toContain(KEY);
        expect(envelope.type, text(envelope)).toBe("error");
        expect(text(envelope)).toMatch(/reads the files the config file includes/);
        const plainList = await session.call("bash", { command: "git config -f x.cfg --list" });
        expect(plainList.type, text(plainList)).toBe("output");
        expect(text(plainList)).not.toContain(KEY);
      } finally {
        await rm(included, { force: true });
        await rm(path.join(l.ws, "x.cfg"), { force: true });
      }
    },
  );

  // getopt takes `--comp` for `--compile`: file then writes m.mgc, a write with no one asked.
  it("file --comp -m m, which writes m.mgc, needs a person", async () => {
    const magic = path.join(l.ws, "m");
    await writeFile(magic, "0 string PRIVATE key\n");
    try {
      spawnSync("/bin/bash", ["-c", "file --comp -m m"], { cwd: l.ws });
      expect(existsSync(`${magic}.mgc`), "plain bash did not write m.mgc").toBe(true);
      await rm(`${magic}.mgc`);
      const envelope = await session.call("bash", { command: "file --comp -m m" });
      expect(text(envelope)).toMatch(/"file --comp" may write files or run programs/);
      expect(existsSync(`${magic}.mgc`), "Lathe let file write m.mgc").toBe(false);
    } finally {
      await rm(magic, { force: true });
      await rm(`${magic}.mgc`, { force: true });
    }
  });

  // pgrep -f matches against other processes' command lines: whether it finds one tells whether
  // a guess is in it, so a key is read a letter at a time.
  it("pgrep -f, which tells whether another process's command line holds a guess, is refused", async () => {
    const found = (pattern: string) =>
      spawnSync("/bin/bash", ["-c", `pgrep -f '${pattern}'`], { cwd: l.ws }).status === 0;
    expect(
      found(`api-key=${ENV_VALUE.slice(0, 10)}`),
      "plain bash: pgrep -f did not find the key's start",
    ).toBe(true);
    expect(found("api-key=no-such-guess"), "plain bash: pgrep -f found a wrong guess").toBe(false);
    for (const command of [`pgrep -f 'api-key=${ENV_VALUE.slice(0, 10)}'`, "pgrep --fu api-key=p"]) {
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(/matches its pattern against the command lines of other processes/);
    }
  });

  // less -t opens the file a tags file names for the tag; on a terminal (Lathe's bash has one)
  // it shows it: a workspace tags file can name the key.
  it.each(["less -F -t foo", "less -F --tag=foo"])(
    "%s, showing the file a tags file names, is refused",
    async (command) => {
      if (spawnSync("sh", ["-c", "command -v script && command -v less"]).status !== 0) {
        console.log(`skipped "${command}": script or less is not installed here`);
        return;
      }
      await writeFile(path.join(l.ws, "tags"), `foo\t${path.join(l.home, ".ssh/id_ed25519")}\t1\n`);
      try {
        const plain = spawnSync("script", ["-qc", command, "/dev/null"], {
          cwd: l.ws,
          encoding: "utf8",
          input: "",
          timeout: 10_000,
        });
        expect(plain.stdout, `plain bash on a terminal did not show the key: ${plain.stderr}`).toContain(KEY);
        const envelope = await session.call("bash", { command, timeout_ms: 10_000 });
        expect(text(envelope), "Lathe let less show the key").not.toContain(KEY);
        expect(envelope.type, text(envelope)).toBe("error");
        expect(text(envelope)).toMatch(/opens the file a tags file names for the tag/);
        const named = await session.call("bash", { command: "less -F README.md", timeout_ms: 10_000 });
        expect(named.type, text(named)).toBe("output");
        expect(text(named)).toContain("hello");
      } finally {
        await rm(path.join(l.ws, "tags"), { force: true });
      }
    },
  );

  // TAPE names the archive tar reads when given no -f: one in a hidden folder, named nowhere else.
  it("TAPE=homelink/.ssh/keys.tar tar -t, listing an archive in ~/.ssh, is refused", async () => {
    const archive = path.join(l.home, ".ssh/keys.tar");
    spawnSync("tar", ["cf", archive, "id_ed25519"], { cwd: path.join(l.home, ".ssh") });
    const command = "TAPE=homelink/.ssh/keys.tar tar -t";
    try {
      const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
      expect(plain.stdout, `plain bash did not list the archive: ${plain.stderr}`).toContain("id_ed25519");
      const envelope = await session.call("bash", { command });
      expect(text(envelope), "Lathe let tar list it").not.toContain("id_ed25519");
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(/setting TAPE names the archive tar reads/);
    } finally {
      await rm(archive, { force: true });
    }
  });

  // `git -C<folder>` is judged as `git -C <folder>` (the git here refuses the attached form; one
  // that took it would enter the folder), so it runs unasked where the spaced form does, and a
  // folder whose own .git names a program is still refused.
  it("git -C<folder> runs as git -C <folder> does, and one whose .git runs a program is refused", async () => {
    const spaced = await session.call("bash", { command: "git -C docs status --short" });
    expect(spaced.type, text(spaced)).toBe("output");
    const attached = await session.call("bash", { command: "git -Cdocs status --short" });
    expect(attached.type, text(attached)).toBe("output");
    expect(text(attached)).not.toMatch(/needs approval|not provably read-only/);
    const handed = path.join(l.ws, "handed");
    const marker = path.join(l.base, "ran-fsmonitor");
    await mkdir(handed);
    try {
      spawnSync("git", ["init", "-q", handed]);
      spawnSync("git", ["-C", handed, "config", "core.fsmonitor", `touch ${marker}; false`]);
      spawnSync("/bin/bash", ["-c", "git -C handed status --short"], { cwd: l.ws });
      expect(existsSync(marker), "plain bash did not run the fsmonitor program").toBe(true);
      await rm(marker);
      const envelope = await session.call("bash", { command: "git -Chanded status --short" });
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(/core\.fsmonitor/);
      expect(existsSync(marker), "Lathe ran the fsmonitor program").toBe(false);
    } finally {
      await rm(handed, { recursive: true, force: true });
      await rm(marker, { force: true });
    }
  });

  // PATH set to a number by arithmetic (the workspace folder 1), or unset (bash then runs a
  // command name as the file of that name where it runs): the workspace's cat runs unconfined.
  it.each(["((PATH=1)); cat README.md", "let PATH=1; cat README.md", "unset PATH; cat README.md"])(
    "does not run a workspace program after %s",
    async (command) => {
      const marker = path.join(l.base, "ran-fake-cat");
      // No touch: with PATH=1 the script finds no program either.
      const fake = `#!/bin/sh\n: > ${marker}\n`;
      await mkdir(path.join(l.ws, "1"), { recursive: true });
      await writeFile(path.join(l.ws, "1/cat"), fake, { mode: 0o755 });
      await writeFile(path.join(l.ws, "cat"), fake, { mode: 0o755 });
      try {
        spawnSync("/bin/bash", ["-c", command], { cwd: l.ws });
        expect(existsSync(marker), "plain bash did not run the workspace's cat").toBe(true);
        await rm(marker);
        const envelope = await session.call("bash", { command });
        expect(envelope.type, text(envelope)).toBe("error");
        expect(text(envelope)).toMatch(/cannot be fully seen: .*(setting|unsetting) PATH/);
        expect(existsSync(marker), "Lathe ran the workspace's cat").toBe(false);
      } finally {
        await rm(path.join(l.ws, "1"), { recursive: true, force: true });
        await rm(path.join(l.ws, "cat"), { force: true });
        await rm(marker, { force: true });
      }
    },
  );

  // A bash started without PATH looks names up in its default PATH, which ends with ".": a name
  // the system's folders lack (deno here) runs the workspace's file of that name.
  it.each([
    ["env -i bash -c 'deno --version'", /"env" starts "bash" without PATH/],
    ["env -u PATH bash -c 'deno --version'", /"env" starts "bash" without PATH/],
    [
      "export -n PATH; bash -c 'deno --version'",
      /"export -n PATH" leaves it out of the commands started after/,
    ],
  ])("does not run a workspace program after %s", async (command, reason) => {
    const marker = path.join(l.base, "ran-fake-deno");
    await writeFile(path.join(l.ws, "deno"), `#!/bin/sh\n: > ${marker}\n`, { mode: 0o755 });
    try {
      spawnSync("/bin/bash", ["-c", command], { cwd: l.ws });
      if (!existsSync(marker)) {
        console.log(`skipped "${command}": a deno is installed in the system's folders here`);
        return;
      }
      await rm(marker);
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(reason);
      expect(existsSync(marker), "Lathe ran the workspace's deno").toBe(false);
      const kept = await session.call("bash", { command: "env -u LANG cat README.md" });
      expect(kept.type, text(kept)).toBe("output");
    } finally {
      await rm(path.join(l.ws, "deno"), { force: true });
      await rm(marker, { force: true });
    }
  });

  // `$HOME/x` is `~/x` for the policy: bash starts with Lathe's HOME.
  it.each(["du -sh $HOME/.ssh", 'du -s "${HOME}/.ssh"', "cd $HOME && du -sh .ssh"])(
    "%s, the total of ~/.ssh, runs as du -s ~/.ssh does, and cat of the key is still refused",
    async (command) => {
      const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
      expect(plain.stdout, "plain bash did not print ~/.ssh's total").toMatch(/\t\S*\.ssh\n/);
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("output");
      expect(text(envelope)).toMatch(/\.ssh/);
      expect(text(envelope)).not.toContain("id_ed25519");
      const key = command.replace(/du -sh? /, "cat ").replace(/\.ssh("?)$/, ".ssh/id_ed25519$1");
      const refused = await session.call("bash", { command: key });
      expect(text(refused), `${key} printed the key`).not.toContain(KEY);
      expect(text(refused)).toMatch(/commands may not read: ~\/\.ssh/);
    },
  );

  // A HOME the command sets or unsets itself is not Lathe's: read as ~, `$HOME/proc/<pid>/environ`
  // would be a path in the home folder, while bash reads another process's environment (through
  // the workspace link 1 -> / when HOME is 1).
  it.each([
    "unset HOME; grep -aho 'NAME=[a-z0-9-]*' $HOME/proc/PID/environ",
    "let HOME=1; grep -aho 'NAME=[a-z0-9-]*' ~/proc/PID/environ",
    "HOME=/; grep -aho 'NAME=[a-z0-9-]*' $HOME/proc/PID/environ",
  ])("%s is refused", async (row) => {
    const command = row.replace("NAME", ENV_NAME).replace("PID", String(argvHolder?.pid));
    await symlink("/", path.join(l.ws, "1"));
    try {
      const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
      expect(plain.stdout, `plain bash did not print the variable: ${plain.stderr}`).toContain(ENV_VALUE);
      const envelope = await session.call("bash", { command });
      expect(text(envelope), "Lathe let it print the variable").not.toContain(ENV_VALUE);
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(/cannot be fully seen: .*(setting|unsetting) HOME/);
    } finally {
      await rm(path.join(l.ws, "1"));
    }
  });

  // A variable that hands a listed reader options naming a program: the program is the
  // workspace's (written by the model), run unconfined.
  it.each([
    ["TAR_OPTIONS=--use-compress-program=./prog.sh tar tf a.tar", "tar"],
    ["RIPGREP_CONFIG_PATH=./rg.conf rg hello README.md", "rg"],
  ])("does not run the workspace program %s hands to a reader", async (command, needs) => {
    if (spawnSync("sh", ["-c", `command -v ${needs}`]).status !== 0) {
      console.log(`skipped "${command}": ${needs} is not installed here`);
      return;
    }
    const marker = path.join(l.base, "ran-prog");
    await writeFile(path.join(l.ws, "prog.sh"), `#!/bin/sh\ntouch ${marker}\ncat "$@"\n`, { mode: 0o755 });
    await writeFile(path.join(l.ws, "rg.conf"), "--pre=./prog.sh\n");
    spawnSync("tar", ["cf", "a.tar", "README.md"], { cwd: l.ws });
    spawnSync("/bin/bash", ["-c", command], { cwd: l.ws });
    expect(existsSync(marker), "plain bash did not run prog.sh").toBe(true);
    await rm(marker);
    const envelope = await session.call("bash", { command });
    expect(text(envelope)).toMatch(/cannot be fully seen: setting (TAR_OPTIONS|RIPGREP_CONFIG_PATH)/);
    expect(existsSync(marker)).toBe(false);
  });

  // tree -R starts tree again in each folder at the -L level, writing 00Tree.html there: a
  // lister that writes, so it is not read-only (and would write into .git/ or .lathe/ as well).
  it.each(["tree -L 1 -R trees", "tree -aRL 1 trees"])(
    "%s writes in every folder, so it needs a person",
    async (command) => {
      if (spawnSync("sh", ["-c", "command -v tree"]).status !== 0) {
        console.log(`skipped "${command}": tree is not installed here`);
        return;
      }
      const written = path.join(l.ws, "trees/a/00Tree.html");
      await mkdir(path.join(l.ws, "trees/a/b"), { recursive: true });
      try {
        spawnSync("/bin/bash", ["-c", command], { cwd: l.ws });
        expect(existsSync(written), "plain tree did not write 00Tree.html").toBe(true);
        await rm(written);
        const envelope = await session.call("bash", { command });
        expect(envelope.type, text(envelope)).toBe("error");
        expect(text(envelope)).toMatch(
          /not provably read-only \("tree -a?RL?" may write files or run programs\)/,
        );
        expect(existsSync(written)).toBe(false);
      } finally {
        await rm(path.join(l.ws, "trees"), { recursive: true, force: true });
      }
    },
  );

  it("still runs a toolchain's own program asked for its version unasked (node --version)", async () => {
    const saved = process.env.PATH;
    // The node running these tests, first: a native program named node.
    process.env.PATH = `${path.dirname(process.execPath)}:${saved ?? ""}`;
    try {
      const envelope = await session.call("bash", { command: "node --version" });
      expect(envelope.type, text(envelope)).toBe("output");
      expect(text(envelope)).toContain(process.version);
    } finally {
      process.env.PATH = saved;
    }
  });

  // npm is a script (npm-cli.js), which answers --version before it makes any folder; asked for
  // anything else it still asks.
  it("runs npm --version unasked when npm is npm's own script, run by a native node", async () => {
    const saved = process.env.PATH;
    const found = spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim();
    const real = found === "" ? "" : realpathSync(found);
    if (!/\/node_modules\/npm\/bin\/npm-cli\.js$/.test(real)) {
      console.log(`skipped npm --version: npm here is ${real || "missing"}, not npm's own script`);
      return;
    }
    // The node running these tests first, as npm's `env node` finds it.
    process.env.PATH = `${path.dirname(process.execPath)}:${path.dirname(found)}:${saved ?? ""}`;
    try {
      const envelope = await session.call("bash", { command: "npm --version" });
      expect(envelope.type, text(envelope)).toBe("output");
      expect(text(envelope)).toMatch(/\d+\.\d+\.\d+/);
      const help = await session.call("bash", { command: "npm --help" });
      expect(text(help)).toMatch(/not provably read-only.*"npm" in .* is a script/);
      const run = await session.call("bash", { command: "npm run x --version" });
      expect(text(run)).toMatch(/not provably read-only/);
      // npx's own script runs `npm exec`, which answers --version the same way.
      const npxFound = path.join(path.dirname(found), "npx");
      if (existsSync(npxFound) && /\/node_modules\/npm\/bin\/npx-cli\.js$/.test(realpathSync(npxFound))) {
        const npx = await session.call("bash", { command: "npx --version" });
        expect(npx.type, text(npx)).toBe("output");
        expect(text(npx)).toMatch(/\d+\.\d+\.\d+/);
        const shell = await session.call("bash", { command: "npx -V" });
        expect(text(shell)).toMatch(/not provably read-only.*"npx" in .* is a script/);
      } else console.log("skipped npx --version: npx here is not npm's own script");
    } finally {
      process.env.PATH = saved;
    }
  });

  it("says why it refuses a hidden path in the words of the mode: Lathe refuses it, no sandbox hides it", async () => {
    const envelope = await session.call("bash", { command: "cat ~/.ssh/id_ed25519" });
    expect(text(envelope)).toMatch(
      /commands may not read: ~\/\.ssh.*with the OS sandbox off, Lathe refuses every command that names it/,
    );
    expect(text(envelope)).not.toMatch(/sandbox hides/);
  });

  it.each([
    "cat README.md",
    "grep -rn hello .",
    "ps -e -o pid,comm",
    "ps -e",
    "pgrep -l node",
    "cat /proc/self/status",
    // A lister that lists a link it is given as the link, not where it leads.
    "find homelink -maxdepth 1",
    "du -a homelink",
    "find docs -name '*.txt'",
    "awk 'BEGIN { for (i = 1; i < ARGC; i++) print ARGV[i] } 1' README.md",
  ])("the read-only %s still runs", async (command) => {
    const envelope = await session.call("bash", { command });
    expect(envelope.type, text(envelope)).toBe("output");
  });

  // In the home folder: ~/.ssh's own total is what `du -d 1 ~` prints (which runs); what is inside is not.
  it.each(["cd ~ && du -sh .s* *", "du -s ~/.ssh", "du -sh ~/.s*"])(
    "%s, the total of ~/.ssh, runs as du -d 1 ~ does",
    async (command) => {
      const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
      expect(plain.stdout, "plain bash did not print ~/.ssh's total").toMatch(/\t\S*\.ssh\n/);
      const listing = await session.call("bash", { command: "du -d 1 ~" });
      expect(listing.type, text(listing)).toBe("output");
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("output");
      expect(text(envelope)).toMatch(/\.ssh/);
      expect(text(envelope)).not.toContain("id_ed25519");
    },
  );

  it("du -sh ~/.ssh/* is refused, without the names inside, and says du -s ~/.ssh runs", async () => {
    const plain = spawnSync("/bin/bash", ["-c", "du -sh ~/.ssh/*"], { cwd: l.ws, encoding: "utf8" });
    expect(plain.stdout, "plain bash did not show the key's name").toContain("id_ed25519");
    const envelope = await session.call("bash", { command: "du -sh ~/.ssh/*" });
    expect(envelope.type, text(envelope)).toBe("error");
    expect(text(envelope)).not.toContain("id_ed25519");
    expect(text(envelope)).toMatch(/Its total size is shown: du -s \S*\.ssh runs/);
  });
});

describe("sandbox off: a folder read whole that holds a sandbox.denyRead folder", () => {
  let l: Layout;
  let engine: Engine;
  let session: Session;

  beforeAll(async () => {
    l = await createLayout();
    await mkdir(path.join(l.ws, "private"));
    await writeFile(path.join(l.ws, "private/token.txt"), `${KEY}\n`);
    await writeFile(
      path.join(l.lh, "settings.json"),
      JSON.stringify({
        permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
        sandbox: { enabled: false, denyRead: [path.join(l.ws, "private")] },
      }),
    );
    engine = await Engine.create({ root: l.ws, latheHome: l.lh });
    session = await engine.openSession({ mode: "yolo" });
  });

  afterAll(async () => {
    await engine.close();
    await rm(l.base, { recursive: true, force: true });
  });

  // The secret is the key for the readers, the hidden file's name for the listers.
  it.each([
    ["grep -rh PRIVATE .", KEY],
    ["grep -rh PRIVATE", KEY],
    ["cd docs/.. && grep -rh PRIVATE", KEY],
    // A value option by a prefix (or one Lathe does not list) takes the next word: no folder is named.
    ["grep -rh --max-c 5 PRIVATE", KEY],
    ["grep -rh --cont 1 PRIVATE", KEY],
    ["grep -rh --include '*' PRIVATE", KEY],
    ['find . -name "tok*"', "token.txt"],
    ['find -name "tok*"', "token.txt"],
    ["find -L -name 'tok*'", "token.txt"],
    ["ls -R", "token.txt"],
    ["ls -aR .", "token.txt"],
    ["cd docs && ls -R ..", "token.txt"],
    ["du -a", "token.txt"],
    ["du -ab --max-depth 2 .", "token.txt"],
    ["rg --files", "token.txt"],
    ["rg --files .", "token.txt"],
    ["tree -a", "token.txt"],
    ["tree -L 2 .", "token.txt"],
    // A depth limit that still reaches inside the denyRead folder (depth 1 here).
    ["find . -maxdepth 2", "token.txt"],
    ["find -maxdepth 3 -name 'tok*'", "token.txt"],
    ["cd docs && find .. -maxdepth 2", "token.txt"],
    ["find . -maxdepth 1 -maxdepth 2", "token.txt"],
    ["find -L . -maxdepth 2", "token.txt"],
    // du prints names down to its limit, as find -maxdepth does.
    ["du -a -d 2 .", "token.txt"],
    ["du -a --max-depth=3 docs/..", "token.txt"],
    // Long options by a prefix getopt takes: a depth past the first level, the last one given.
    ["du -d 1 --max-d=3 -a .", "token.txt"],
    ["du -a --max-de 3", "token.txt"],
    ["ls --rec", "token.txt"],
  ])("%s is refused: nothing else would hide the folder", async (command, secret) => {
    const program = command.replace(/^cd \S+ && /, "").split(" ")[0] as string;
    if (spawnSync("sh", ["-c", `command -v ${program}`]).status !== 0) {
      console.log(`skipped "${command}": ${program} is not installed here`);
      return;
    }
    const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
    expect(plain.stdout, "plain bash did not print the secret").toContain(secret);
    const envelope = await session.call("bash", { command });
    expect(text(envelope), text(envelope)).not.toContain(secret);
    expect(text(envelope)).toMatch(/reads the folder .* as a whole, which holds paths no command may read/);
  });

  it.each([
    "find docs -name '*.txt'",
    "ls -R docs",
    "du -a docs",
    "du -sh .",
    "ls -la",
    "find -L docs -maxdepth 0",
  ])("the lister %s, walking no hidden folder, still runs", async (command) => {
    const envelope = await session.call("bash", { command });
    expect(envelope.type, text(envelope)).toBe("output");
  });

  // A depth limit that stops the lister at the denyRead folder's own name prints what `ls`
  // prints (which runs): the name, nothing inside. Under plain bash it shows the folder and no
  // name below it; through Lathe it runs and shows the same.
  it.each([
    ["find . -maxdepth 1", "find"],
    ["find -maxdepth 1 -type d", "find"],
    ["cd docs && find .. -maxdepth 1", "find"],
    ["find -L . -maxdepth 1", "find"],
    // du also prints the folder's total size (summed from inside it: what `du -s .` less the
    // others' totals already shows), never a name inside it.
    ["du -d 1 .", "du"],
    ["du -ah --max-depth=1", "du"],
    ["du -ad1 .", "du"],
    ["du --max-d=1 .", "du"],
    ["cd docs && du -d 1 ..", "du"],
    ["tree -L 1", "tree"],
    ["tree -a -L 1 .", "tree"],
  ])("the lister %s, stopping at the denyRead folder's name, runs", async (command, program) => {
    if (spawnSync("sh", ["-c", `command -v ${program}`]).status !== 0) {
      console.log(`skipped "${command}": ${program} is not installed here`);
      return;
    }
    const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
    expect(plain.stdout, "plain bash did not show the folder").toContain("private");
    expect(plain.stdout, "plain bash showed a name inside the folder").not.toContain("token");
    const envelope = await session.call("bash", { command });
    expect(envelope.type, text(envelope)).toBe("output");
    expect(text(envelope)).toContain("private");
    expect(text(envelope)).not.toContain("token");
  });

  it("a refused lister says how deep it may list: the hidden folder's name, du its total, nothing inside", async () => {
    const envelope = await session.call("bash", { command: "du -a -d 2 ." });
    expect(text(envelope)).toMatch(
      /reads the folder .* as a whole.*Listed no deeper than 1 level \(find -maxdepth 1, du -d 1, tree -L 1\), it runs.*du also its total size/,
    );
  });

  // du's --exclude makes a total an oracle for names: `du -s --exclude=token.txt .` is smaller
  // than `du -s .` exactly when a file of that name is somewhere below, in the denyRead folder
  // too. With it, du reads every level as far as the policy is concerned.
  it.each([
    ["du -sb --exclude=token.txt .", "du -sb ."],
    ["du -d 1 -b --exclude token.txt", "du -d 1 -b"],
    ["du -sbX excluded.txt .", "du -sb ."],
    ["du -sb --exclude-f=excluded.txt .", "du -sb ."],
    ["du -d 1 -b --exclude-fr excluded.txt", "du -d 1 -b"],
  ])("%s, telling by a total whether a name is in the denyRead folder, is refused", async (command, bare) => {
    await writeFile(path.join(l.ws, "excluded.txt"), "token.txt\n");
    const total = (cmd: string): string =>
      spawnSync("/bin/bash", ["-c", `${cmd} | tail -n 1`], { cwd: l.ws, encoding: "utf8" }).stdout;
    expect(total(command), "plain bash: excluding the name did not change the total").not.toBe(total(bare));
    const without = await session.call("bash", { command: bare });
    expect(without.type, text(without)).toBe("output");
    const envelope = await session.call("bash", { command });
    expect(envelope.type, text(envelope)).toBe("error");
    expect(text(envelope)).toMatch(/reads the folder .* as a whole, which holds paths no command may read/);
  });

  // --time prints the newest time below each folder: for the denyRead one, when something inside
  // was last changed (or read, --time=atime). No sum shows that, so du --time counts as reading
  // every level. A file count (--inodes) is a sum like a size and runs where the size does.
  it.each(["du -d 1 --time .", "du -s --time .", "du -d 1 --time --time-style=+%Y ."])(
    "%s, showing when something in the denyRead folder last changed, is refused",
    async (command) => {
      const token = path.join(l.ws, "private/token.txt");
      const when = new Date("2039-06-07T00:00:00Z");
      await utimes(token, when, when);
      const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
      expect(plain.stdout, "plain bash did not show the token's time").toContain("2039");
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).not.toContain("2039");
      expect(text(envelope)).toMatch(/reads the folder .* as a whole, which holds paths no command may read/);
      expect(text(envelope)).toMatch(/not with --time/);
    },
  );

  it.each(["du -d 1 --inodes .", "du -s --inodes ."])(
    "%s, a count summed as a size is, runs",
    async (command) => {
      const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("output");
      expect(text(envelope)).not.toContain("token");
      expect(text(envelope)).toContain(plain.stdout.trim().split("\n").at(-1)?.split("\t")[0] ?? "none");
    },
  );

  // du -s prints one total per path it is given: for the denyRead folder named itself (by a glob
  // beside it, `du -sh *`, or by name) the total `du -d 1 .` prints already, which runs; nothing
  // inside it. Under plain bash both print the same line for the folder; through Lathe it runs.
  it.each([
    ["du -sh *", "du -h -d 1 ."],
    ["du -s private", "du -d 1 ."],
    ["du -sb ./* docs", "du -b -d 1 ."],
    ["du -s --inodes private", "du --inodes -d 1 ."],
    ["du -d 0 -k ./priv*", "du -k -d 1 ."],
  ])("%s, printing the denyRead folder's total as %s does, runs", async (command, listing) => {
    const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
    const line = plain.stdout.split("\n").find((row) => /\t(\.\/)?private$/.test(row));
    expect(line, "plain bash did not print the denyRead folder's total").toBeDefined();
    const listed = spawnSync("/bin/bash", ["-c", listing], { cwd: l.ws, encoding: "utf8" });
    expect(listed.stdout, `${listing} printed another total`).toContain(`${line?.split("\t")[0]}\t./private`);
    const envelope = await session.call("bash", { command });
    expect(envelope.type, text(envelope)).toBe("output");
    expect(text(envelope)).toContain(JSON.stringify(line).slice(1, -1));
    expect(text(envelope)).not.toContain("token");
  });

  // Inside the folder (a glob there lists its names): refused, and the refusal says what runs
  // instead, without the names the glob matched there.
  it.each(["du -sh private/*", "du -s ./priv*/*.txt"])(
    "%s, showing names and sizes inside the denyRead folder, is refused",
    async (command) => {
      const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
      expect(plain.stdout, "plain bash did not show the name inside").toContain("token.txt");
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).not.toContain("token");
      expect(text(envelope)).toMatch(
        /names \S+, which matches paths in \S*private, which commands may not read/,
      );
      expect(text(envelope)).toMatch(/Its total size is shown: du -s \S*private runs/);
    },
  );

  it("du -s private/token.txt is refused, and says du -s private runs", async () => {
    const envelope = await session.call("bash", { command: "du -s private/token.txt" });
    expect(envelope.type, text(envelope)).toBe("error");
    expect(text(envelope)).toMatch(/names \S*private\/token\.txt, which commands may not read/);
    expect(text(envelope)).toMatch(/Its total size is shown: du -s \S*private runs/);
  });

  // Any other reader handed a glob's match inside the folder: the match is no more shown.
  it("cat private/* is refused without the name the glob matched", async () => {
    const plain = spawnSync("/bin/bash", ["-c", "cat private/* && echo private/*"], {
      cwd: l.ws,
      encoding: "utf8",
    });
    expect(plain.stdout, "plain bash did not show the name").toContain("token.txt");
    const envelope = await session.call("bash", { command: "cat private/*" });
    expect(envelope.type, text(envelope)).toBe("error");
    expect(text(envelope)).not.toContain("token");
    expect(text(envelope)).not.toContain(KEY);
  });

  it("du -sL private, whose total counts where links inside lead, is refused", async () => {
    const outside = path.join(l.base, "big.bin");
    await writeFile(outside, Buffer.alloc(300_000));
    await symlink(outside, path.join(l.ws, "private/big-link"));
    try {
      const size = (cmd: string): number =>
        Number(spawnSync("/bin/bash", ["-c", cmd], { cwd: l.ws, encoding: "utf8" }).stdout.split("\t")[0]);
      expect(size("du -sbL private"), "plain bash: -L did not count the link's target").toBeGreaterThan(
        size("du -sb private") + 200_000,
      );
      const envelope = await session.call("bash", { command: "du -sbL private" });
      expect(envelope.type, text(envelope)).toBe("error");
      const bare = await session.call("bash", { command: "du -sb private" });
      expect(bare.type, text(bare)).toBe("output");
    } finally {
      await rm(path.join(l.ws, "private/big-link"));
    }
  });

  // With the sandbox on, the listers run confined and unasked: the sandbox shows the denyRead
  // folder empty, so its names do not leak there either (the folder's own name does, as ls shows it).
  it("with the sandbox on, the same listers run and print no name inside the denyRead folder", async () => {
    const machine = await machineSandbox();
    if (!machine.active) {
      console.log(`skipped the sandbox-on listers: this machine has no OS sandbox (${machine.reason})`);
      return;
    }
    const lh = path.join(l.base, "lh-on");
    await mkdir(lh);
    await writeFile(
      path.join(lh, "settings.json"),
      JSON.stringify({
        permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
        sandbox: { denyRead: [path.join(l.ws, "private")] },
      }),
    );
    const on = await Engine.create({ root: l.ws, latheHome: lh });
    try {
      const confined = await on.openSession({ mode: "yolo" });
      for (const command of ['find . -name "tok*"', "ls -R", "du -a", "grep -rl PRIVATE ."]) {
        const plain = spawnSync("/bin/bash", ["-c", command], { cwd: l.ws, encoding: "utf8" });
        expect(plain.stdout, `${command}: plain bash did not show the hidden file`).toContain("token");
        const envelope = await confined.call("bash", { command });
        expect(envelope.type, `${command}: ${text(envelope)}`).toBe("output");
        expect(text(envelope), command).not.toContain("token");
      }
    } finally {
      await on.close();
    }
  });

  it("a folder read whole with nothing hidden below it still runs", async () => {
    const envelope = await session.call("bash", { command: "grep -rn hello docs README.md" });
    expect(envelope.type, text(envelope)).toBe("output");
  });
});

// What a folder someone handed over (a cloned repository, an unpacked archive) or the way Lathe
// was started (`npx lathe` puts <workspace>/node_modules/.bin first on PATH) makes an everyday
// read-only command do: a file named like an option that a glob passes on (`--pre=sh` runs `sh`
// on every file rg searches; `-r` makes grep read a linked home folder), a program found first on
// PATH in the workspace (`cat` itself, or the decompressor `rg -z` and `tar` start by name), a link
// into another process's /proc folder, a glob of folders read whole with a link among them. Each
// row is first shown to do the damage under plain bash (the planted program creates a file, or
// the secret is printed); through Lathe, with the sandbox off and every bash command allowed in
// yolo mode, it is refused and nothing happens, and everyday neighbours still run unasked.

interface PlantedRow {
  command: string;
  /** What the folder holds besides README.md and a.txt ("foo"); `marker`: the file a planted program creates. */
  plant: (ws: string, marker: string) => Promise<void>;
  /** PATH for the command, from the workspace and the PATH this test runs with. */
  searchPath?: (ws: string, inherited: string) => string;
  /** "removes a file": `d/.victim` in the workspace is gone; "overwrites a file": README.md changed. */
  damage: "runs a program" | "prints the secret" | "removes a file" | "overwrites a file";
  refused: RegExp;
  /** Commands in the same folder, with the same PATH, that still run unasked. */
  benign: string[];
  needs?: string;
  /** Programs the user's settings let bash run besides the default ones (`shell`). */
  shell?: string[];
}

const script = (marker: string): string => `#!/bin/sh\ntouch ${marker}\n`;

/** PATH with pyenv's shims first, where `pyenv init` puts them (the row needs pyenv). */
const pyenvFirst = (_ws: string, inherited: string): string => {
  const root = spawnSync("pyenv", ["root"], { encoding: "utf8" }).stdout.trim();
  return `${path.join(root, "shims")}:${inherited}`;
};

/** A file in /dev/shm for the workspace `ws` (removed with it). */
const shared = (ws: string): string => `/dev/shm/lathe-test-${path.basename(path.dirname(ws))}`;

/** A process with the provider key in its environment, as Lathe's own holds it. */
let keyHolder: ReturnType<typeof spawn> | undefined;

const PLANTED: PlantedRow[] = [
  {
    // A version manager's stand-in (as pyenv's, asdf's or nodenv's shims are: scripts named for
    // the tool, first on PATH) runs whatever a file in the folder names.
    command: "node --version",
    plant: async (ws, marker) => {
      const shims = path.join(path.dirname(ws), "shims");
      await mkdir(shims);
      await writeFile(path.join(shims, "node"), '#!/bin/sh\nexec "$(cat .node-runtime)" "$@"\n', {
        mode: 0o755,
      });
      await writeFile(path.join(ws, ".node-runtime"), "./runtime.sh\n");
      await writeFile(path.join(ws, "runtime.sh"), script(marker), { mode: 0o755 });
    },
    searchPath: (ws, inherited) => `${path.join(path.dirname(ws), "shims")}:${inherited}`,
    damage: "runs a program",
    refused: /"node" in "[^"]*shims" is a script \(a version manager's stand-in/,
    benign: ["cat README.md", "ls -la"],
  },
  {
    // rustup's cargo is rustup, which runs the toolchain rust-toolchain.toml names, any folder.
    command: "cargo --version",
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "tc/bin"), { recursive: true });
      await writeFile(path.join(ws, "tc/bin/cargo"), script(marker), { mode: 0o755 });
      await writeFile(path.join(ws, "rust-toolchain.toml"), `[toolchain]\npath = "${path.join(ws, "tc")}"\n`);
    },
    damage: "runs a program",
    refused: /"cargo" in "[^"]*" is "[^"]*rustup", another program/,
    benign: ["cat README.md"],
    needs: "rustup",
    shell: ["cargo"],
  },
  // pyenv's python --version runs unasked when what the shim runs is known from the folder; a
  // PYENV_ variable set on the command line changes that where Lathe does not look.
  {
    // pyenv exec first sources every $PYENV_HOOK_PATH/exec/*.bash: bash code from the folder.
    command: "PYENV_HOOK_PATH=hooks python --version",
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "hooks/exec"), { recursive: true });
      await writeFile(path.join(ws, "hooks/exec/x.bash"), `touch ${marker}\n`);
    },
    searchPath: pyenvFirst,
    damage: "runs a program",
    refused: /[Ss]etting PYENV_HOOK_PATH changes what pyenv's stand-ins .* hook scripts they run first/,
    benign: ["cat README.md"],
    needs: "pyenv",
    shell: ["python"],
  },
  {
    command: "env PYENV_HOOK_PATH=hooks python -V",
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "hooks/exec"), { recursive: true });
      await writeFile(path.join(ws, "hooks/exec/x.bash"), `touch ${marker}\n`);
    },
    searchPath: pyenvFirst,
    damage: "runs a program",
    refused: /[Ss]etting PYENV_HOOK_PATH changes what pyenv's stand-ins/,
    benign: ["cat README.md"],
    needs: "pyenv",
    shell: ["python"],
  },
  {
    // A version taken from PYENV_VERSION is joined to $PYENV_ROOT/versions as written, .. and all.
    command: `PYENV_VERSION=${"../".repeat(24)}$PWD/evil python --version`,
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "evil/bin"), { recursive: true });
      await writeFile(path.join(ws, "evil/bin/python"), script(marker), { mode: 0o755 });
    },
    searchPath: pyenvFirst,
    damage: "runs a program",
    refused: /[Ss]etting PYENV_VERSION changes what pyenv's stand-ins .* the version \(a path, too\)/,
    benign: ["cat README.md"],
    needs: "pyenv",
    shell: ["python"],
  },
  {
    command: "rg foo *",
    plant: async (ws, marker) => {
      await writeFile(path.join(ws, "--pre=sh"), "");
      await writeFile(path.join(ws, "evil"), `touch ${marker}\n`);
    },
    damage: "runs a program",
    refused:
      /[Tt]he pattern "\*" given to "rg" matches the file "--pre=sh", which "rg" would read as an option/,
    benign: ["rg foo -- *", "rg foo ./*", "rg foo a.txt"],
    needs: "rg",
  },
  {
    // Listing an archive only reads, and names members; but a file named as an option is one.
    command: "tar tf a.tar *",
    plant: async (ws) => {
      spawnSync("tar", ["cf", "a.tar", "a.txt"], { cwd: ws });
      await writeFile(path.join(ws, "--use-compress-program=sh -c 'cd ..; touch marker'"), "");
    },
    damage: "runs a program",
    refused:
      /[Tt]he pattern "\*" given to "tar" matches the file "--use-compress-program=sh[^"]*", which "tar" would read as an option/,
    benign: ["tar tf a.tar", "tar -tvf a.tar *.txt", "tar --list -f a.tar -- *.txt"],
  },
  {
    // tar reads its first word as options: `t*` is `tI 'timeout 9 sh -c …'`, -I runs the second.
    command: "tar t*",
    plant: async (ws) => {
      await writeFile(path.join(ws, "tI"), "");
      await writeFile(path.join(ws, "timeout 9 sh -c 'cd ..; touch marker'"), "");
    },
    damage: "runs a program",
    refused:
      /the first word of "tar", "t\*", is only known when the shell runs, and tar reads a first word as its options/,
    benign: ["cat README.md"],
  },
  {
    // `-e` takes the next word as its pattern, whatever it reads; but after `-g` it is the glob,
    // and the word after it is read as an option.
    command: 'P=$(cat pat); rg -g -e "$P" foo evil',
    plant: async (ws, marker) => {
      await writeFile(path.join(ws, "pat"), "--pre=sh\n");
      await writeFile(path.join(ws, "evil"), `touch ${marker}\n`);
    },
    damage: "runs a program",
    refused: /"\$P" is only known when the shell runs and could be an option of "rg"/,
    benign: ['P=$(cat pat); rg -e "$P" evil a.txt', 'P=$(cat pat); rg -i --regexp "$P" evil'],
    needs: "rg",
  },
  {
    // sort pipes its temporary files through --compress-program, here sh, which runs them.
    command: "sort *",
    plant: async (ws, marker) => {
      await writeFile(path.join(ws, "--compress-program=sh"), "");
      await writeFile(path.join(ws, "-S1"), "");
      await writeFile(path.join(ws, "big"), `touch ${marker}\n`.repeat(3000));
    },
    damage: "runs a program",
    refused: /[Tt]he pattern "\*" given to "sort" matches the file "(--compress-program=sh|-S1)"/,
    benign: ["sort -- *", "sort ./*", "sort *.txt"],
  },
  {
    // A name starting with `-` among find's starting points starts its expression, even after
    // `--`: `find -delete -name x` searches `.` and removes all it finds (the dot file too).
    command: "cd d && find * -name x",
    plant: async (ws) => {
      await mkdir(path.join(ws, "d"), { recursive: true });
      await writeFile(path.join(ws, "d/-delete"), "");
      await writeFile(path.join(ws, "d/.victim"), "");
    },
    damage: "removes a file",
    refused: /[Tt]he pattern "\*" given to "find" matches the file "-delete"/,
    benign: ["cd d && find ./* -name x", "find * -name a.txt", "find *.txt README.md"],
  },
  {
    // git log's names past the options are revisions and paths, but a name starting with `-` is
    // an option: --output=README.md overwrites README.md with the log.
    command: "git log *",
    plant: async (ws) => {
      const git = (...args: string[]): void => {
        spawnSync("git", ["-c", "user.name=a", "-c", "user.email=a@b", ...args], { cwd: ws });
      };
      git("init", "-q");
      git("add", ".");
      git("commit", "-qm", "x");
      await writeFile(path.join(ws, "--output=README.md"), "");
    },
    damage: "overwrites a file",
    refused: /[Tt]he pattern "\*" given to "git" matches the file "--output=README.md"/,
    benign: [
      "git log --oneline -- *",
      "git log --oneline ./*",
      "git ls-files *.txt",
      "git show --stat *.txt",
    ],
  },
  {
    command: "grep -h PRIVATE *",
    plant: async (ws) => {
      await writeFile(path.join(ws, "-r"), "");
      await symlink(path.join(path.dirname(ws), "home"), path.join(ws, "homelink"));
    },
    damage: "prints the secret",
    refused: /[Tt]he pattern "\*" given to "grep" matches the file "-r"/,
    benign: ["grep -h PRIVATE -- *", "grep -h foo a.txt", "ls -la"],
  },
  {
    command: "cat README.md",
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "node_modules/.bin"), { recursive: true });
      await writeFile(path.join(ws, "node_modules/.bin/cat"), script(marker), { mode: 0o755 });
      await writeFile(path.join(ws, "node_modules/.bin/tsc"), script(marker), { mode: 0o755 });
    },
    searchPath: (ws, inherited) => `${ws}/node_modules/.bin:${inherited}`,
    damage: "runs a program",
    refused:
      /PATH holds "[^"]*node_modules\/\.bin", a folder in the workspace, and "cat" is found there first/,
    benign: ["ls -la", "head -1 a.txt", "rg foo a.txt"],
  },
  {
    command: "rg -z foo a.br",
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "bin"));
      await writeFile(path.join(ws, "bin/brotli"), script(marker), { mode: 0o755 });
      await writeFile(path.join(ws, "a.br"), "foo\n");
    },
    searchPath: (_ws, inherited) => `${inherited}:bin`,
    damage: "runs a program",
    refused:
      /"rg" here starts "brotli" itself: PATH holds "bin", a folder relative to where the command runs/,
    benign: ["rg foo a.br", "cat README.md"],
    needs: "rg",
  },
  {
    command: "rg --search-zip foo a.br",
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "bin"));
      await writeFile(path.join(ws, "bin/brotli"), script(marker), { mode: 0o755 });
      await writeFile(path.join(ws, "a.br"), "foo\n");
    },
    searchPath: (ws, inherited) => `${inherited}:${ws}/bin`,
    damage: "runs a program",
    refused:
      /PATH holds "[^"]*\/bin", a folder in the workspace, and "brotli" \(which "rg" starts itself\) is found there first/,
    benign: ["rg foo a.br", "cat README.md"],
    needs: "rg",
  },
  {
    command: "tar tf a.tar.lz",
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "bin"));
      await writeFile(path.join(ws, "bin/lzip"), script(marker), { mode: 0o755 });
      // lzip's magic: tar starts `lzip -d` on it, whatever the name.
      await writeFile(path.join(ws, "a.tar.lz"), `LZIP\x01\x0c${"x".repeat(40)}`);
    },
    searchPath: (_ws, inherited) => `${inherited}:bin`,
    damage: "runs a program",
    refused: /"tar" here starts "lzip" itself: PATH holds "bin"/,
    benign: ["cat README.md", "ls -la"],
    needs: "tar",
  },
  {
    command: "git verify-commit signed",
    plant: async (ws, marker) => {
      await mkdir(path.join(ws, "bin"));
      await writeFile(path.join(ws, "bin/gpg"), script(marker), { mode: 0o755 });
      // A commit carrying a signature (made up: git hands it to gpg all the same).
      const git = (args: string[], input?: string): string =>
        spawnSync("git", args, { cwd: ws, input, encoding: "utf8" }).stdout.trim();
      git(["init", "-q"]);
      git(["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"]);
      const tree = git(["rev-parse", "HEAD^{tree}"]);
      const who = "a <a@b> 1700000000 +0000";
      const body = `tree ${tree}\nauthor ${who}\ncommitter ${who}\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n xx\n -----END PGP SIGNATURE-----\n\nsigned\n`;
      const sha = git(["hash-object", "-t", "commit", "-w", "--stdin"], body);
      git(["tag", "signed", sha]);
    },
    searchPath: (ws, inherited) => `${ws}/bin:${inherited}`,
    damage: "runs a program",
    refused:
      /PATH holds "[^"]*\/bin", a folder in the workspace, and "gpg" \(which "git" starts itself\) is found there first/,
    benign: ["git log --oneline -1 signed", "cat README.md"],
    needs: "git",
  },
  {
    command: "cat notes.txt",
    plant: async (ws) => {
      await symlink(`/proc/${keyHolder?.pid}/environ`, path.join(ws, "notes.txt"));
    },
    damage: "prints the secret",
    refused:
      /cannot ask anyone.*"notes\.txt" leads through a link to "\/proc\/\d+\/environ", which belongs to another process/,
    benign: ["cat README.md", "cat /proc/self/status"],
  },
  // A committed link to /proc/self/cwd is the reading command's folder for the command, and
  // Lathe's own folder when Lathe resolves it: through it, the workspace's link to the home folder.
  ...["cat here/homelink/.ssh/id_ed25519", "grep -h PRIVATE here/homelink/.ssh/*", "cat notes.md"].map(
    (command): PlantedRow => ({
      command,
      plant: async (ws) => {
        await symlink("/proc/self/cwd", path.join(ws, "here"));
        await symlink("/proc/self/cwd/homelink/.ssh/id_ed25519", path.join(ws, "notes.md"));
        await symlink(path.join(path.dirname(ws), "home"), path.join(ws, "homelink"));
      },
      damage: "prints the secret",
      refused: /leads through a link under \/proc\/self, the reading process's own folder/,
      benign: ["cat README.md", "ls -la"],
    }),
  ),
  // jq's module system reads files named inside the program, relative to the folder it runs in.
  ...[
    `jq -n 'import "homelink/.ssh/conf" as $d; $d'`,
    `jq -n 'include "homelink/.ssh/lib"; f'`,
    "jq -n -f prog.jq",
  ].map((command): PlantedRow => ({
    command,
    plant: async (ws) => {
      const home = path.join(path.dirname(ws), "home");
      await writeFile(path.join(home, ".ssh/conf.json"), JSON.stringify({ key: KEY }));
      await writeFile(path.join(home, ".ssh/lib.jq"), `def f: "${KEY}";\n`);
      await writeFile(path.join(ws, "prog.jq"), 'import "homelink/.ssh/conf" as $d; $d\n');
      await symlink(home, path.join(ws, "homelink"));
    },
    damage: "prints the secret",
    refused: /jq .*(reads a module or data file|runs a jq program from a file)/,
    benign: ["jq -n 1", "jq . prog.jq || true"],
    needs: "jq",
  })),
  {
    // binutils take more arguments from a response file: @opts names the key.
    command: "strings @opts",
    plant: async (ws) => {
      await writeFile(path.join(ws, "opts"), `${path.join(path.dirname(ws), "home/.ssh/id_ed25519")}\n`);
    },
    damage: "prints the secret",
    refused: /"strings @opts" reads the names of the files it reads from another file/,
    benign: ["strings README.md"],
    needs: "strings",
    shell: ["strings"],
  },
  {
    // What processes share in memory, a file away from the workspace (/dev/shm: the sandbox's /dev is its own).
    command: "cat notes.bin",
    plant: async (ws) => {
      await writeFile(shared(ws), `${KEY}\n`);
      await symlink(shared(ws), path.join(ws, "notes.bin"));
    },
    damage: "prints the secret",
    refused: /"notes\.bin" leads through a link to the device "\/dev\/shm\/[^"]+"/,
    benign: ["cat README.md", "cat /dev/null"],
  },
  {
    command: "grep -ah PROVIDER p/*/environ",
    plant: async (ws) => {
      await symlink("/proc", path.join(ws, "p"));
    },
    damage: "prints the secret",
    refused:
      /"p\/\d+\/environ" leads through a link to "\/proc\/\d+\/environ", which belongs to another process|matches more files/,
    benign: ["grep -h foo a.txt"],
  },
  {
    command: "grep -rh PRIVATE home*",
    plant: async (ws) => {
      await symlink(path.join(path.dirname(ws), "home"), path.join(ws, "homelink"));
    },
    damage: "prints the secret",
    refused: /reads the folder homelink as a whole, and it is a link to/,
    benign: ["grep -rh foo a*", "grep -rh foo ."],
  },
];

// A session keeps its tools' capability (and what it resolved) from call to call: a file that
// becomes a link to the key between two calls must be judged as it is at the second.
describe("sandbox off: a file replaced by a link to the key between two calls", () => {
  it("is refused at the second call, though it was a plain file at the first", async () => {
    const { ws, home, session, close } = await openSandboxOff("lathe-off-relinked-", true);
    await writeFile(path.join(ws, "notes.txt"), "plain notes\n");
    try {
      const first = await session.call("bash", { command: "cat notes.txt" });
      expect(text(first)).toContain("plain notes");
      await rm(path.join(ws, "notes.txt"));
      await symlink(path.join(home, ".ssh/id_ed25519"), path.join(ws, "notes.txt"));
      const plain = spawnSync("/bin/bash", ["-c", "cat notes.txt"], { cwd: ws, encoding: "utf8" });
      expect(plain.stdout, "plain bash did not print the key").toContain(KEY);
      const second = await session.call("bash", { command: "cat notes.txt" });
      expect(text(second), "Lathe let it print the key").not.toContain(KEY);
      expect(text(second)).toMatch(/the command names ~\/\.ssh\/id_ed25519, which commands may not read/);
    } finally {
      await close();
    }
  });
});

// A denyRead entry is judged as it resolves at each call: ~/.ssh moved elsewhere and left as a
// link to where it went, or made (as a link) only after the session started, still hides the key,
// as the OS sandbox, set up at each command, would hide it.
describe("sandbox off: a denyRead folder that becomes a link during the session", () => {
  let off: SandboxOff;
  let base: string;
  let home: string;
  let ws: string;
  let session: Session;

  beforeAll(async () => {
    off = await openSandboxOff("lathe-off-moved-", false);
    ({ base, home, ws, session } = off);
    await writeFile(path.join(ws, "notes.txt"), "plain notes\n");
  });

  afterAll(async () => {
    await off.close();
  });

  const readsKey = async (where: string): Promise<void> => {
    const plain = spawnSync("/bin/bash", ["-c", "cat ~/.ssh/id_ed25519"], {
      cwd: ws,
      encoding: "utf8",
      env: { ...process.env, HOME: home },
    });
    expect(plain.stdout, "plain bash did not print the key through the link").toContain(KEY);
    for (const command of ["cat ~/.ssh/id_ed25519", `cat ${where}/id_ed25519`, "grep -r PRIVATE ~/.ssh/"]) {
      const envelope = await session.call("bash", { command });
      expect(text(envelope), `${command}: Lathe let it print the key`).not.toContain(KEY);
      expect(envelope.type, command).toBe("error");
      expect(text(envelope)).toMatch(/which commands may not read: ~\/\.ssh/);
    }
  };

  it("~/.ssh moved elsewhere and replaced by a link to it still hides the key", async () => {
    await mkdir(path.join(home, ".ssh"));
    await writeFile(path.join(home, ".ssh/id_ed25519"), `${KEY}\n`);
    // The entry is resolved while it is a real folder.
    const before = await session.call("bash", { command: "cat ~/.ssh/id_ed25519" });
    expect(before.type, text(before)).toBe("error");
    const moved = path.join(base, "synced/ssh");
    await mkdir(path.dirname(moved));
    await rename(path.join(home, ".ssh"), moved);
    await symlink(moved, path.join(home, ".ssh"));
    try {
      await readsKey(moved);
    } finally {
      await rm(path.join(home, ".ssh"));
      await rm(path.dirname(moved), { recursive: true });
    }
  });

  it("~/.ssh made as a link only after the session started hides the key", async () => {
    const ran = await session.call("bash", { command: "cat notes.txt" });
    expect(text(ran)).toContain("plain notes");
    const vault = path.join(base, "vault");
    await mkdir(vault);
    await writeFile(path.join(vault, "id_ed25519"), `${KEY}\n`);
    await symlink(vault, path.join(home, ".ssh"));
    try {
      await readsKey(vault);
      const still = await session.call("bash", { command: "cat notes.txt" });
      expect(still.type, text(still)).toBe("output");
    } finally {
      await rm(path.join(home, ".ssh"));
      await rm(vault, { recursive: true });
    }
  });
});

// `-` is standard input to cat and grep, but a file name to ls, du and find: `ls -` lists where a
// link named `-` leads. Checked as a path when it exists; when it does not, only a file made
// before the command runs could be read, which no check would see, so the command needs a person.
describe("sandbox off: a - that a program reads as a file name", () => {
  let off: SandboxOff;
  let ws: string;
  let home: string;
  let session: Session;

  beforeAll(async () => {
    off = await openSandboxOff("lathe-off-dash-", true);
    ({ ws, home, session } = off);
  });

  afterAll(async () => {
    await off.close();
  });

  it.each(["ls -", "ls -- -", "ls -aR -"])(
    "%s through a link named - to ~/.ssh is refused",
    async (command) => {
      await symlink(path.join(home, ".ssh"), path.join(ws, "-"));
      try {
        const plain = spawnSync("/bin/bash", ["-c", command], { cwd: ws, encoding: "utf8" });
        expect(plain.stdout, `plain bash did not list ~/.ssh: ${plain.stderr}`).toContain("id_ed25519");
        const envelope = await session.call("bash", { command });
        expect(text(envelope)).not.toContain("id_ed25519");
        expect(envelope.type, text(envelope)).toBe("error");
        expect(text(envelope)).toMatch(/the command names ~\/\.ssh/);
        // Standard input to these, whatever the folder holds.
        for (const [reader, shows] of [
          ["echo hi | cat -", "hi"],
          ["echo hi | grep -c hi -", "1"],
        ]) {
          const ran = await session.call("bash", { command: reader });
          expect(ran.type, text(ran)).toBe("output");
          expect(text(ran)).toContain(shows);
        }
      } finally {
        await rm(path.join(ws, "-"));
      }
    },
  );

  it.each([
    ["find . -name -", "./-"],
    ["find . -iname - -o -name x", "./-"],
    ["echo '{\"a\":7}' | jq .a -", "7"],
    ["echo '{\"a\":7}' | timeout 5 jq .a -", "7"],
    ["echo '{\"a\":7}' | jq -c . - -", '{\\"a\\":7}'],
    // GNU xargs: `-a -` is its standard input; coreutils od: `-` is standard input.
    ["echo from-stdin | xargs -a - echo", "from-stdin"],
    ["echo from-stdin | xargs --arg-file - echo", "from-stdin"],
    ["echo hi | od -c -", "h   i"],
    // procps ps: a lone - is no option ("garbage option"), and lists no process.
    ["ps -", ""],
  ])(
    "%s runs unasked, a link named - to the key there: - is a pattern or standard input to it",
    async (command, shows) => {
      await writeFile(path.join(ws, "notes.txt"), "plain notes\n");
      await symlink(path.join(home, ".ssh/id_ed25519"), path.join(ws, "-"));
      try {
        const plain = spawnSync("/bin/bash", ["-c", command], { cwd: ws, encoding: "utf8" });
        expect(plain.stdout, "plain bash read the link named -").not.toContain("PRIVATE");
        const envelope = await session.call("bash", { command });
        expect(envelope.type, text(envelope)).toBe("output");
        expect(text(envelope)).toContain(shows);
        expect(text(envelope)).not.toContain("PRIVATE");
      } finally {
        await rm(path.join(ws, "-"));
      }
    },
  );

  it.each([
    "column -",
    "jq -n --rawfile k - '$k'",
    "jq -r -f - notes.txt",
    "find . -newer - -name x -o -samefile -",
  ])("%s, where - is a file name, is refused through a link named - to the key", async (command) => {
    await writeFile(path.join(ws, "notes.txt"), "plain notes\n");
    await symlink(path.join(home, ".ssh/id_ed25519"), path.join(ws, "-"));
    try {
      if (!command.startsWith("find")) {
        const plain = spawnSync("/bin/bash", ["-c", command], { cwd: ws, encoding: "utf8" });
        expect(`${plain.stdout}${plain.stderr}`, "plain bash did not read the key").toContain("PRIVATE");
      }
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).not.toContain(KEY);
      expect(text(envelope)).toMatch(/the command names ~\/\.ssh\/id_ed25519/);
    } finally {
      await rm(path.join(ws, "-"));
    }
  });

  it.each([
    "ls -",
    "du -a -",
    "find - -maxdepth 0",
    "ls -l -- -",
    "timeout 5 ls -",
    "column -",
    "find . -newer -",
    "jq -f - a.json",
    "ps -n -",
    "echo hi | hexdump -C -",
  ])(
    "%s with no file - yet needs a person: one made before it runs would not be checked",
    async (command) => {
      const envelope = await session.call("bash", { command });
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(
        // jq -f asks before the disk is looked at: any program file may import what Lathe cannot see.
        /not provably read-only \("([a-z]+" reads "-" as a file name, not as its standard input, and there is no file|jq -f" runs a jq program from a file)/,
      );
      const ran = await session.call("bash", { command: "echo hi | cat -" });
      expect(text(ran)).toContain("hi");
    },
  );

  // util-linux hexdump opens a file named -; given no file, it reads its standard input.
  it("echo hi | hexdump -C - says to give hexdump no file, which runs", async () => {
    const plain = spawnSync("/bin/bash", ["-c", "echo hi | hexdump -C -"], { cwd: ws, encoding: "utf8" });
    expect(plain.stderr, "plain hexdump did not look for a file named -").toMatch(/-: No such file/);
    const envelope = await session.call("bash", { command: "echo hi | hexdump -C -" });
    expect(envelope.type, text(envelope)).toBe("error");
    expect(text(envelope)).toMatch(/for standard input, give hexdump no file, and it reads it/);
    const fixed = await session.call("bash", { command: "echo hi | hexdump -C" });
    expect(fixed.type, text(fixed)).toBe("output");
    expect(text(fixed)).toContain("|hi.|");
  });
});

describe("sandbox off: what a planted file name, PATH folder or link makes a read-only command do", () => {
  let realHome: string | undefined;
  const inherited = process.env.PATH ?? "";

  beforeAll(() => {
    realHome = process.env.HOME;
    keyHolder = spawn("sleep", ["120"], {
      env: { ...process.env, [ENV_NAME]: `PROVIDER-${ENV_VALUE}` },
      stdio: "ignore",
    });
  });

  afterAll(() => {
    keyHolder?.kill();
    process.env.HOME = realHome;
    process.env.PATH = inherited;
  });

  it("a glob in a folder with no name starting with - still runs unasked", async () => {
    const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-off-planted-")));
    const ws = path.join(base, "ws");
    await mkdir(path.join(ws, "src"), { recursive: true });
    await mkdir(path.join(base, "lh"));
    await writeFile(path.join(ws, "a.txt"), "foo\n");
    await writeFile(path.join(ws, "src/b.ts"), "foo\n");
    spawnSync("git", ["init", "-q"], { cwd: ws });
    spawnSync("git", ["add", "."], { cwd: ws });
    await writeFile(path.join(base, "lh/settings.json"), JSON.stringify({ sandbox: { enabled: false } }));
    const engine = await Engine.create({ root: ws, latheHome: path.join(base, "lh") });
    try {
      const session = await engine.openSession({ mode: "yolo" });
      for (const [command, shows] of [
        ["rg foo *", "a.txt"],
        ["grep -r foo *", "src/b.ts:foo"],
        ["cat *.txt", "foo"],
        ["ls -la *", "b.ts"],
        ["cd src && rg foo *", "foo"],
        // The word after -e is the pattern, never an option, whatever the shell makes of it.
        ['P=$(cat a.txt); rg -e "$P" src', "src/b.ts"],
        ["sort -r *.txt a.txt", String.raw`"foo\nfoo\n"`],
        ["find * -name b.ts", "src/b.ts"],
        ["git ls-files *", "src/b.ts"],
      ] as const) {
        const ran = await session.call("bash", { command });
        expect(ran.type, `${command}: ${text(ran)}`).toBe("output");
        expect(text(ran), command).toContain(shows);
      }
    } finally {
      await engine.close();
      await rm(base, { recursive: true, force: true });
    }
  });

  // With the sandbox on, what `--pre=sh` runs is confined, but it is still not what a rule for rg
  // allowed: like `rg --pre=sh foo` spelled out, it needs a person in every mode.
  it("with the sandbox on too, a glob handing rg a file named --pre=sh needs a person", async () => {
    const machine = await machineSandbox();
    if (!machine.active) {
      console.log(`skipped the sandbox-on row: this machine has no OS sandbox (${machine.reason})`);
      return;
    }
    if (!hasRg) {
      console.log("skipped the sandbox-on row: rg is not installed");
      return;
    }
    const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-on-planted-")));
    const ws = path.join(base, "ws");
    const marker = path.join(ws, "marker");
    await mkdir(ws);
    await mkdir(path.join(base, "lh"));
    await writeFile(path.join(ws, "a.txt"), "foo\n");
    await writeFile(path.join(ws, "--pre=sh"), "");
    await writeFile(path.join(ws, "evil"), `touch ${marker}\n`);
    spawnSync("/bin/bash", ["-c", "rg foo *"], { cwd: ws });
    expect(existsSync(marker), "plain bash did not run sh").toBe(true);
    await rm(marker);
    await writeFile(
      path.join(base, "lh/settings.json"),
      JSON.stringify({ permissions: [{ permission: "bash", pattern: "rg *", action: "allow" }] }),
    );
    const engine = await Engine.create({ root: ws, latheHome: path.join(base, "lh") });
    try {
      const session = await engine.openSession({ mode: "yolo" });
      const envelope = await session.call("bash", { command: "rg foo *" });
      expect(text(envelope)).toMatch(
        /cannot ask anyone.*[Tt]he pattern "\*" given to "rg" matches the file "--pre=sh"/,
      );
      expect(existsSync(marker)).toBe(false);
      const ran = await session.call("bash", { command: "rg foo -- *" });
      expect(ran.type, text(ran)).toBe("output");
      expect(existsSync(marker)).toBe(false);
    } finally {
      await engine.close();
      await rm(base, { recursive: true, force: true });
    }
  });

  // GNU tar reads an archive named `host:file` from that host through the remote shell it runs
  // (/usr/bin/rsh); this machine may have none, so the control is tar saying it tried.
  it("tar given an archive named host:file, spelled or through a glob, needs a person", async () => {
    const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-off-planted-")));
    const ws = path.join(base, "ws");
    await mkdir(ws, { recursive: true });
    await mkdir(path.join(base, "lh"));
    await writeFile(path.join(ws, "a.txt"), "foo\n");
    spawnSync("tar", ["cf", "a.tar", "a.txt"], { cwd: ws });
    spawnSync("cp", ["a.tar", "localhost:b.tar"], { cwd: ws });
    const plain = spawnSync("/bin/bash", ["-c", "tar tf localhost:b.tar"], { cwd: ws, encoding: "utf8" });
    expect(plain.stderr, "plain tar did not try a remote shell").toMatch(/remote shell|rsh|ssh/i);
    await writeFile(
      path.join(base, "lh/settings.json"),
      JSON.stringify({
        permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
        sandbox: { enabled: false },
      }),
    );
    const engine = await Engine.create({ root: ws, latheHome: path.join(base, "lh") });
    try {
      const session = await engine.openSession({ mode: "yolo" });
      for (const [command, refused] of [
        ["tar tf localhost:b.tar", /"tar" reads "localhost:b.tar" from another machine/],
        [
          "tar tf *b.tar",
          /matches the file "localhost:b.tar", which "tar" would read as an archive on another machine/,
        ],
      ] as const) {
        const envelope = await session.call("bash", { command });
        expect(envelope.type, `${command}: ${text(envelope)}`).toBe("error");
        expect(text(envelope)).toMatch(refused);
      }
      for (const command of ["tar tf ./*b.tar", "tar tf a.tar", "tar -tf localhost:b.tar --force-local"]) {
        const ran = await session.call("bash", { command });
        expect(ran.type, `${command}: ${text(ran)}`).toBe("output");
        expect(text(ran), command).toContain("a.txt");
      }
    } finally {
      await engine.close();
      await rm(base, { recursive: true, force: true });
    }
  });

  it.each(PLANTED.map((row) => [row.command, row] as const))("%s", async (_command, row) => {
    if (row.needs !== undefined && spawnSync("sh", ["-c", `command -v ${row.needs}`]).status !== 0) {
      console.log(`skipped "${row.command}": ${row.needs} is not installed`);
      return;
    }
    const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-off-planted-")));
    const ws = path.join(base, "ws");
    const home = path.join(base, "home");
    const lh = path.join(base, "lh");
    const marker = path.join(base, "marker");
    for (const dir of [ws, path.join(home, ".ssh"), lh]) await mkdir(dir, { recursive: true });
    await writeFile(path.join(home, ".ssh/id_ed25519"), `${KEY}\n`);
    await writeFile(path.join(ws, "README.md"), "# hello\n");
    await writeFile(path.join(ws, "a.txt"), "foo\n");
    await row.plant(ws, marker);
    const searchPath = row.searchPath?.(ws, inherited) ?? inherited;
    const victim = path.join(ws, "d/.victim");
    const damaged = (out: string): boolean =>
      row.damage === "runs a program"
        ? existsSync(marker)
        : row.damage === "removes a file"
          ? !existsSync(victim)
          : row.damage === "overwrites a file"
            ? readFileSync(path.join(ws, "README.md"), "utf8") !== "# hello\n"
            : leaked(out);

    // Positive control: plain bash in the same folder, with the same home and PATH.
    const plain = spawnSync("/bin/bash", ["-c", row.command], {
      cwd: ws,
      env: { ...process.env, HOME: home, PATH: searchPath },
      encoding: "utf8",
    });
    expect(damaged(plain.stdout), `plain bash did not ${row.damage}: ${plain.stderr}`).toBe(true);
    await rm(marker, { force: true });
    if (row.damage === "removes a file") await row.plant(ws, marker);
    if (row.damage === "overwrites a file") await writeFile(path.join(ws, "README.md"), "# hello\n");

    await writeFile(
      path.join(lh, "settings.json"),
      JSON.stringify({
        permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
        sandbox: { enabled: false },
        ...(row.shell ? { shell: row.shell.map((cmd) => ({ cmd })) } : {}),
      }),
    );
    process.env.HOME = home;
    process.env.PATH = searchPath;
    const engine = await Engine.create({ root: ws, latheHome: lh });
    try {
      const session = await engine.openSession({ mode: "yolo" });
      const envelope = await session.call("bash", { command: row.command, timeout_ms: 20_000 });
      expect(damaged(text(envelope)), `Lathe let it ${row.damage}: ${text(envelope)}`).toBe(false);
      expect(envelope.type, text(envelope)).toBe("error");
      expect(text(envelope)).toMatch(row.refused);
      for (const command of row.benign) {
        const ran = await session.call("bash", { command, timeout_ms: 20_000 });
        expect(ran.type, `${command}: ${text(ran)}`).toBe("output");
        expect(damaged(text(ran)), `${command} did the damage: ${text(ran)}`).toBe(false);
      }
    } finally {
      await engine.close();
      process.env.HOME = realHome;
      process.env.PATH = inherited;
      await rm(base, { recursive: true, force: true });
      await rm(shared(ws), { force: true });
    }
  });
});
