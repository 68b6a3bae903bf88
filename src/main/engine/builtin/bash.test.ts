import { execSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Envelope, OutputEnvelope } from "../tools/envelope.ts";
import { OUTPUT_LIMITS } from "../tools/truncation.ts";
import { CAPTURED_TAIL_BYTES } from "../spawner/capped-output.ts";
import { bashTool, CUT_TAIL_BYTES, TIMEOUT_TAIL_BYTES, type BashData } from "./bash.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import { sleepers as running, sleepMarker as marker } from "../../../../test/support/sleep-markers.ts";

let ws: TestWorkspace;
beforeEach(async () => {
  ws = await openTestWorkspace();
  // The engine ships bash as a built-in: these tests run the very same definition.
  expect(ws.engine.registry.get("bash")?.tool).toBe(bashTool);
});
afterEach(async () => {
  await ws.cleanup();
});

const bash = (
  command: string,
  extra: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<Envelope> => ws.session.call("bash", { command, ...extra }, signal ? { signal } : undefined);

/** Waits until nothing carries any of the markers; returns how many processes still do. */
async function survivors(found: string[], withinMs: number): Promise<number> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = found.flatMap(running).length;
    if (left === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until every marker is carried by a running process (the command really started them). */
async function started(found: string[], withinMs = 5000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!found.every((m) => running(m).length > 0)) {
    if (Date.now() > deadline) throw new Error(`not every process started: ${found.join(", ")}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function sidecarOf(envelope: Envelope): string {
  const out = envelope as OutputEnvelope<BashData>;
  expect(out.type).toBe("output");
  expect(out.metadata.truncated).toBe(true);
  expect(out.metadata.output_path).toBeTypeOf("string");
  return out.metadata.output_path as string;
}

describe("bash: results", () => {
  it.each([
    ["true", 0],
    ["false", 1],
    ["exit 42", 42],
    ["ls no-such-file-here >/dev/null 2>&1", 2],
    ["kill -TERM $$", 128 + 15],
    ["kill -KILL $$", 128 + 9],
  ])("reports the exit code of `%s` as %i", async (command, code) => {
    expect(outputOf<BashData>(await bash(command)).exit_code).toBe(code);
  });

  it("combines stdout and stderr in the order they were printed", async () => {
    const data = outputOf<BashData>(
      await bash("echo out1; echo err1 >&2; echo out2; sh -c 'echo err2 >&2'; echo out3"),
    );
    expect(data.output).toBe("out1\nerr1\nout2\nerr2\nout3\n");
    expect(data.exit_code).toBe(0);
  });

  // The model reads what the terminal's screen would show (spawner/screen-text.ts).
  it.each([
    ["terminal newlines", String.raw`printf 'a\r\nb\r\n'`, "a\nb\n"],
    ["colours", String.raw`printf '\033[31mred\033[0m \033[1;32mgreen\033[m\n'`, "red green\n"],
    ["a \\r progress line", String.raw`printf '10%%\r50%%\r100%%\n'`, "100%\n"],
    ["a progress line erased and redrawn", String.raw`printf 'fetching 3 files\r\033[Kdone\n'`, "done\n"],
    ["a \\r at the very end", String.raw`printf 'tail\r'`, "tail"],
    ["backspaces", String.raw`printf 'ab\bc\n'`, "ac\n"],
    ["a window title", String.raw`printf '\033]0;owned\007T\n'`, "T\n"],
    ["a clipboard write", String.raw`printf '\033]52;c;cm0gLXJmIH4=\007clip\n'`, "clip\n"],
    ["a hyperlink", String.raw`printf '\033]8;;https://e.com\033\\link\033]8;;\033\\\n'`, "link\n"],
    ["an unterminated title", String.raw`printf '\033]0;never ended\nnext\n'`, "\nnext\n"],
    ["other controls", String.raw`printf 'a\000b\007c\tx\n'`, "abc\tx\n"],
  ])("gives the model %s as the screen shows them", async (_what, command, shown) => {
    expect(outputOf<BashData>(await bash(command)).output).toBe(shown);
  });

  it("keeps unicode intact", async () => {
    const text = "héllo wörld — 日本語 🎉 ÅΩ\n";
    await ws.put("u.txt", text);
    expect(outputOf<BashData>(await bash("cat u.txt; printf 'ünï\\n'")).output).toBe(text + "ünï\n");
  });

  it("runs in a non-interactive environment: dumb terminal, no colour, no pager, wide lines", async () => {
    // The terminal is the command's output (in the OS sandbox it has no controlling terminal).
    const data = outputOf<BashData>(
      await bash('echo "$TERM $NO_COLOR $PAGER $GIT_PAGER $LATHE"; stty size <&1'),
    );
    expect(data.output).toBe("dumb 1 cat cat 1\n50 500\n");
  });

  it("gives a command that reads stdin end-of-file instead of hanging", async () => {
    const began = Date.now();
    const data = outputOf<BashData>(
      await bash('cat; echo "cat done $?"; read -r line </dev/tty; echo "tty read $?"', {
        timeout_ms: 10_000,
      }),
    );
    // Reading the terminal gets end-of-file; in the OS sandbox (its own session) there is no
    // terminal to open at all, which fails at once too.
    expect(data.output).toBe(
      ws.engine.sandboxStatus.active
        ? "cat done 0\n/usr/bin/bash: line 1: /dev/tty: No such device or address\ntty read 1\n"
        : "cat done 0\ntty read 1\n",
    );
    expect(Date.now() - began).toBeLessThan(5000);
  });

  describe("with the user's editor in the environment", () => {
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it.each(["EDITOR", "VISUAL", "GIT_EDITOR"])(
      "a git commit without -m ends at once, saying why, when %s names an editor that waits",
      async (variable) => {
        // An "editor" that waits like vi does for keys nobody types.
        const editing = marker();
        const editor = await ws.put(
          "editor.sh",
          `#!/bin/sh
exec sleep ${editing}
`,
        );
        await chmod(editor, 0o755);
        const git = "git -c user.name=t -c user.email=t@t";
        const setup = `git init -q && ${git} commit -q --allow-empty -m first`;
        // Positive control: plain git with that variable starts the editor and waits in it.
        execSync(setup, { cwd: ws.root });
        const control = spawn("sh", ["-c", `${git} commit --allow-empty`], {
          cwd: ws.root,
          env: { ...process.env, [variable]: editor },
          stdio: "ignore",
        });
        await started([editing]);
        control.kill("SIGKILL");
        for (const pid of running(editing)) process.kill(pid, "SIGKILL");
        await rm(ws.abs(".git/index.lock"), { force: true });

        vi.stubEnv(variable, editor);
        const began = Date.now();
        const data = outputOf<BashData>(await bash(`${git} commit --allow-empty`, { timeout_ms: 20_000 }));
        expect(data.output).toContain("Aborting commit due to empty commit message");
        expect(data.exit_code).toBe(1);
        expect(Date.now() - began).toBeLessThan(10_000);
        expect(running(editing)).toEqual([]);
        // Nothing is left locked: the next commit works.
        expect(existsSync(ws.abs(".git/index.lock"))).toBe(false);
        expect(outputOf<BashData>(await bash(`${git} commit -q --allow-empty -m second`)).exit_code).toBe(0);
      },
    );
  });

  it("has npm answer from its cache at once when the OS sandbox gives no network, not after a minute of retries", async () => {
    expect(ws.engine.sandboxStatus.active).toBe(true);
    const began = Date.now();
    const data = outputOf<BashData>(
      await bash("npm view lathe-no-such-package-7f3a version", { timeout_ms: 30_000 }),
    );
    expect(data.output).toContain("ENOTCACHED");
    expect(data.exit_code).not.toBe(0);
    expect(Date.now() - began).toBeLessThan(15_000);
  }, 40_000);

  it("keys approvals on the command with its whitespace collapsed, and the folder it runs in", () => {
    expect(bashTool.deriveApprovalKey({ command: "  git   status\n\t--short  " })).toBe("git status --short");
    expect(bashTool.deriveApprovalKey({ command: "ls", timeout_ms: 5 })).toBe("ls");
    expect(bashTool.deriveApprovalKey({ command: "ls", cwd: "." })).toBe("ls");
    expect(bashTool.deriveApprovalKey({ command: "ls", cwd: "./" })).toBe("ls");
    expect(bashTool.deriveApprovalKey({ command: "ls", timeout_ms: 5, cwd: "src" })).toBe("ls (in src)");
    expect(bashTool.deriveApprovalKey({ command: "ls", cwd: "./src//" })).toBe("ls (in src)");
    expect(bashTool.deriveApprovalKey({ command: "ls", cwd: "src/../lib" })).toBe("ls (in lib)");
  });
});

describe("bash: cwd", () => {
  it("runs in the root by default and in a folder below it when asked", async () => {
    await mkdir(ws.abs("pkg/src"), { recursive: true });
    expect(outputOf<BashData>(await bash("pwd")).output).toBe(`${ws.root}\n`);
    expect(outputOf<BashData>(await bash("pwd", { cwd: "pkg/src" })).output).toBe(`${ws.abs("pkg/src")}\n`);
    expect(outputOf<BashData>(await bash("pwd", { cwd: "pkg/../pkg" })).output).toBe(`${ws.abs("pkg")}\n`);
  });

  it.each([
    ["..", /outside|not allowed|denied/i],
    ["/etc", /outside|not allowed|denied/i],
    ["../../..", /outside|not allowed|denied/i],
    ["missing", /does not exist/],
    ["file.txt", /is a file, not a folder/],
  ])("refuses cwd %s and runs nothing", async (cwd, message) => {
    await ws.put("file.txt", "x\n");
    const text = errorOf(await bash("touch ran-marker", { cwd }));
    expect(text).toMatch(message);
    expect(await ws.tree()).toEqual(["file.txt"]);
    expect(existsSync(path.join(path.dirname(ws.root), "ran-marker"))).toBe(false);
  });

  it("refuses a cwd that is a symlink leading out of the root", async () => {
    const { symlink } = await import("node:fs/promises");
    await symlink(path.dirname(ws.root), ws.abs("escape"));
    expect(errorOf(await bash("touch ran-marker", { cwd: "escape" }))).toMatch(/outside|not allowed|denied/i);
    expect(existsSync(path.join(path.dirname(ws.root), "ran-marker"))).toBe(false);
  });
});

describe("bash: arguments", () => {
  it.each([
    [{ command: "" }, /command/],
    [{ command: "   \n " }, /command is empty/],
    [{ command: "echo a\0b" }, /NUL|U\+0000/],
    [{ command: "ls", timeout_ms: 0 }, /timeout_ms/],
    [{ command: "ls", timeout_ms: 600_001 }, /timeout_ms/],
    [{ command: "ls", timeout_ms: 1.5 }, /timeout_ms/],
    [{ command: "ls", shell: "zsh" }, /shell/],
  ])("rejects %j with a message naming the problem", async (args, message) => {
    expect(errorOf(await ws.session.call("bash", args))).toMatch(message);
  });
});

describe("bash: long command lines", () => {
  it.each([
    [
      "120 KB of ASCII",
      `echo ${"a".repeat(120_001)}`,
      /too long \(120006 bytes; bash takes at most 120000\).*write/,
    ],
    ["60 000 two-byte characters", `printf '%s' "${"é".repeat(60_000)}"`, /too long \(120014 bytes/],
  ])("refuses a command line of %s, saying to put it in a file", async (_what, command, message) => {
    expect(errorOf(await bash(command))).toMatch(message);
  });

  it("runs a command line just under the limit", async () => {
    const data = outputOf<BashData>(await bash(`printf '%s' ${"a".repeat(110_000)} | wc -c`));
    expect(data).toEqual({ output: "110000\n", exit_code: 0 });
  });

  it("says a command is too long, not that Lathe failed, when the sandbox's quoting makes it so", async () => {
    // 39 KB of quotes: short enough to run bare, too long once the sandbox quotes it twice over.
    const envelope = await bash(`echo ${"'x'".repeat(13_000)} | wc -c`);
    if (!ws.engine.sandbox.status.active) {
      console.log("the OS sandbox is not active here: the command runs unwrapped");
      expect(outputOf<BashData>(envelope).output).toBe("13001\n");
      return;
    }
    const text = errorOf(envelope);
    expect(text).toMatch(/^The command line is too long \(once the OS sandbox has quoted it.*write/);
    expect(text).not.toMatch(/bash failed/);
  });
});

describe("bash: stopping", () => {
  it("kills the whole process group on timeout and says it timed out", async () => {
    const [bg, fg] = [marker(), marker()];
    const began = Date.now();
    const call = bash(`(trap '' HUP; exec sleep ${bg}) & sleep ${fg}`, { timeout_ms: 1500 });
    await started([bg, fg]);
    const text = errorOf(await call);
    expect(text).toContain("timed out after 1500 ms");
    expect(Date.now() - began).toBeLessThan(4000);
    expect(await survivors([bg, fg], 3000)).toBe(0);
  });

  // bash outlives the program it waits for by a moment (see PRELUDE in pty-runner.ts), and says
  // "Terminated" of it, as in a terminal; a program bash execs in its place leaves no such line.
  it.each([
    ["prints nothing", (m: string) => `exec sleep ${m}`, [/It printed nothing\./]],
    [
      "printed a little",
      (m: string) => `echo first; echo second >&2; sleep ${m}`,
      [/Its output until then:\nfirst\nsecond\nTerminated\n$/],
    ],
    [
      "waits for input it will never get",
      (m: string) => `echo 'Continue? [y/N]'; sleep ${m}`,
      [/Continue\? \[y\/N\]\nTerminated\n$/, /non-interactive flags/],
    ],
    [
      "printed past the cap",
      (m: string) => `seq 1 100000; echo LAST-LINE; sleep ${m}`,
      [
        /All \d+ bytes it printed are in \/\S+, as printed \(escape sequences included; read can open it\)\./,
        /The last 16 KB of the \d+ bytes of its output:\n(.|\n)*\n99999\n100000\nLAST-LINE\nTerminated\n$/,
      ],
    ],
  ])(
    "on timeout, a command that %s: the error shows the end of its output and how to give it longer",
    async (_what, command, expected) => {
      const fg = marker();
      const call = bash(command(fg), { timeout_ms: 1500 });
      await started([fg]);
      const text = errorOf(await call);
      expect(text).toContain("timed out after 1500 ms");
      expect(text).toContain("larger timeout_ms (at most 600000)");
      for (const pattern of expected) expect(text).toMatch(pattern);
      const sidecar = /are in (\S+), as printed/.exec(text)?.[1];
      if (sidecar)
        expect((await readFile(sidecar, "utf8")).endsWith("100000\nLAST-LINE\nTerminated\n")).toBe(true);
      expect(await survivors([fg], 3000)).toBe(0);
    },
  );

  // git removes its index.lock on SIGTERM; killed outright it leaves the lock, and every later
  // git command in the repository fails until someone deletes it.
  it.each([
    ["times out", (call: Promise<Envelope>) => call, "timed out"],
    [
      "is aborted",
      (call: Promise<Envelope>, controller: AbortController) => {
        controller.abort(new Error("the user pressed stop"));
        return call;
      },
      "aborted",
    ],
  ])(
    "lets the programs of a command that %s clean up on SIGTERM before it kills them",
    async (_what, stop, said) => {
      const held = marker();
      const controller = new AbortController();
      // A program holding a lock file it removes on SIGTERM, as git does, taking its time.
      await ws.put(
        "hold.mjs",
        `import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
process.on("SIGTERM", () => setTimeout(() => { rmSync("held.lock", { force: true }); process.exit(1); }, 300));
writeFileSync("held.lock", "");
spawn("sleep", ["${held}"], { stdio: "ignore" });`,
      );
      const call = bash("node hold.mjs; echo after", { timeout_ms: 1500 }, controller.signal);
      await started([held]);
      expect(existsSync(ws.abs("held.lock"))).toBe(true);
      expect(errorOf(await stop(call, controller))).toContain(said);
      // An aborted call returns at once; its programs finish cleaning up within the grace.
      const deadline = Date.now() + 3000;
      while (existsSync(ws.abs("held.lock")) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 25));
      expect(existsSync(ws.abs("held.lock"))).toBe(false);
      expect(await survivors([held], 3000)).toBe(0);
    },
  );

  // Nobody ever types into a command's terminal: a program reading it waits until the timeout.
  it.each([
    ["a pager on a file", "printf 'line\\n%.0s' $(seq 1 200) > long.txt; echo before; less long.txt", "less"],
    ["a pager at the end of a pipe", "echo before; seq 1 500 | more", "more"],
    ["a prompt read from the terminal", "echo before; read -r -p 'Continue? ' answer <&2", "bash"],
  ])(
    "stops %s as soon as it waits for keys, saying so, instead of at the timeout",
    async (_what, command, program) => {
      const began = Date.now();
      const text = errorOf(await bash(command, { timeout_ms: 60_000 }));
      expect(Date.now() - began).toBeLessThan(15_000);
      expect(text).toContain(`\`${program}\` was waiting for someone to type`);
      expect(text).toMatch(/cat, head or sed -n/);
      expect(text).toMatch(/Its output until then:\nbefore\n/);
      expect(text).not.toContain("timed out");
    },
  );

  it("lets a quiet command that reads no terminal run on to its end", async () => {
    const data = outputOf<BashData>(await bash("echo start; sleep 3; echo end", { timeout_ms: 60_000 }));
    expect(data).toEqual({ output: "start\nend\n", exit_code: 0 });
  });

  it("SIGKILLs a process group that ignores SIGTERM", async () => {
    const [bg, fg] = [marker(), marker()];
    const call = bash(`trap '' TERM; sleep ${bg} & sleep ${fg}`, { timeout_ms: 1500 });
    await started([bg, fg]);
    expect(errorOf(await call)).toContain("timed out");
    expect(await survivors([bg, fg], 5000)).toBe(0);
  });

  it("stops promptly when the call is aborted mid-command, leaving nothing running", async () => {
    const [bg, fg] = [marker(), marker()];
    const controller = new AbortController();
    const call = bash(`(trap '' HUP; exec sleep ${bg}) & sleep ${fg}`, {}, controller.signal);
    await started([bg, fg]);
    const abortedAt = Date.now();
    controller.abort(new Error("the user pressed stop"));
    expect(errorOf(await call)).toContain("aborted");
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(await survivors([bg, fg], 3000)).toBe(0);
  });

  it("says nothing of background jobs that ended before the command did, and keeps its exit code", async () => {
    const data = outputOf<BashData>(await bash("sleep 0.1 & wait; echo done; exit 3"));
    expect(data).toEqual({ output: "done\n", exit_code: 3 });
  });

  it("stops background jobs left behind when the command ends, even ones ignoring SIGHUP", async () => {
    const [bg, bg2] = [marker(), marker()];
    const data = outputOf<BashData>(
      await bash(
        `(trap '' HUP; exec sleep ${bg}) & echo $! > bg.pid; sleep ${bg2} & echo $! > bg2.pid; echo started`,
      ),
    );
    // And the model reads that they were stopped, with their commands.
    expect(data.exit_code).toBe(0);
    expect(data.output).toMatch(
      new RegExp(
        `^started\\n\\n\\[Lathe stopped these background jobs, still running when the command ended \\(nothing outlives a bash call: do not start servers or watchers\\):\\n\\[1\\]- +Running +\\( trap '' HUP; exec sleep ${bg} \\) &\\n\\[2\\]\\+ +Running +sleep ${bg2} &.*\\]\\n$`,
      ),
    );
    // Both jobs did start (their pids were written), and neither outlives the call.
    expect((await ws.text("bg.pid")).trim()).toMatch(/^\d+$/);
    expect((await ws.text("bg2.pid")).trim()).toMatch(/^\d+$/);
    expect(await survivors([bg, bg2], 3000)).toBe(0);
  });
});

describe("bash: large and fast output", () => {
  it("keeps a head and the end of a 1 MB output, and streams all of it to a sidecar file", async () => {
    const envelope = await bash("head -c 1000000 /dev/zero | tr '\\0' a");
    const data = outputOf<BashData>(envelope);
    const path = sidecarOf(envelope);
    const sidecar = await readFile(path);
    expect(sidecar.length).toBe(1_000_000);
    expect(sidecar.every((b) => b === 0x61)).toBe(true);
    expect(data.exit_code).toBe(0);
    expect(Buffer.byteLength(data.output)).toBeLessThanOrEqual(OUTPUT_LIMITS.bashBytes);
    const [head, note, tail] = data.output.split("\n");
    expect(head).toMatch(/^a{150000,}$/);
    expect(tail).toMatch(/^a{8000,}$/);
    const shown = (head as string).length + (tail as string).length;
    expect(note).toContain(`(${((1_000_000 - shown) / 1024).toFixed(1)} KB) left out here`);
    expect(note).toContain(path);
  });

  it("shows how many lines it left out between the head and the last lines, and how to see them", async () => {
    const envelope = await bash("seq 1 300000");
    const data = outputOf<BashData>(envelope);
    const path = sidecarOf(envelope);
    const expected = Array.from({ length: 300_000 }, (_, i) => `${i + 1}\n`).join("");
    expect(await readFile(path, "utf8")).toBe(expected);
    expect(Buffer.byteLength(data.output)).toBeLessThanOrEqual(OUTPUT_LIMITS.bashBytes);
    const noteAt = data.output.indexOf("[… ");
    const head = data.output.slice(0, noteAt);
    const tail = data.output.slice(data.output.indexOf("\n", noteAt) + 1);
    // The head and the tail are whole lines of the output: its start and its very end.
    expect(expected.startsWith(head)).toBe(true);
    expect(expected.endsWith(tail)).toBe(true);
    expect(head.startsWith("1\n2\n")).toBe(true);
    expect(tail.endsWith("299999\n300000\n")).toBe(true);
    const firstLeftOut = head.split("\n").length; // the line after the head's last
    const lastLeftOut = Number(tail.slice(0, tail.indexOf("\n"))) - 1;
    const leftOut = lastLeftOut - firstLeftOut + 1;
    expect(leftOut).toBeGreaterThan(200_000);
    const bytes = Buffer.byteLength(expected) - Buffer.byteLength(head) - Buffer.byteLength(tail);
    expect(data.output.slice(noteAt, data.output.indexOf("\n", noteAt))).toBe(
      `[… ${leftOut} lines (${(bytes / 2 ** 20).toFixed(1)} MB) left out here; all 300000 lines are in ${path}, as printed (tail -n, grep -n or read it) …]`,
    );
    const { left_out: note, read_rest: how } = (envelope as OutputEnvelope<BashData>).metadata;
    expect(note).toContain(`${leftOut} lines`);
    expect(note).toContain("in its middle are left out");
    expect(note).toContain(`All of it is in ${path}.`);
    expect(how).toContain(`tail -n 100 ${path}`);
    expect(how).toContain(`grep (path "${path}")`);
  });

  it("keeps the error a long build prints at its end", async () => {
    const envelope = await bash("seq 1 100000; echo 'error: the build failed at step 7' >&2; exit 2");
    const data = outputOf<BashData>(envelope);
    sidecarOf(envelope);
    expect(data.exit_code).toBe(2);
    expect(data.output.endsWith("100000\nerror: the build failed at step 7\n")).toBe(true);
  });

  it("says it left out part of a line, not '0 lines', when one long line passes the cap", async () => {
    const envelope = await bash("head -c 3000000 /dev/zero | tr '\\0' a; echo; echo END");
    sidecarOf(envelope);
    const data = (envelope as OutputEnvelope<BashData>).data;
    expect(data.output).toMatch(/\n\[… part of a line \(2\.\d MB\) left out here; all 2 lines are in \S+ /);
    expect(data.output.endsWith(" …]\nEND\n")).toBe(true);
    expect((envelope as OutputEnvelope<BashData>).metadata.left_out).toMatch(
      /^The output was cut: part of a line \(2\.\d MB\) in its middle is left out;/,
    );
  });

  it("says the whole line is in the file, not 'all 1 lines', when the output is one long line", async () => {
    const envelope = await bash("head -c 3000000 /dev/zero | tr '\\0' a");
    sidecarOf(envelope);
    const data = (envelope as OutputEnvelope<BashData>).data;
    expect(data.output).toMatch(/\n\[… part of a line \(2\.\d MB\) left out here; the whole line is in \S+ /);
  });

  it("never splits a character when the head has no newline to end on", async () => {
    const envelope = await bash(
      "for i in $(seq 1 1500); do printf 'éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé'; done",
    );
    const data = outputOf<BashData>(envelope);
    const [head, note, tail] = data.output.split("\n");
    expect(head).toMatch(/^é+$/);
    expect(tail).toMatch(/^é+$/);
    expect(note).toMatch(/^\[… part of a line \(\d+\.\d KB\) left out here/);
    expect(Buffer.byteLength(data.output)).toBeLessThanOrEqual(OUTPUT_LIMITS.bashBytes);
    expect((await stat(sidecarOf(envelope))).size).toBe(1500 * 100 * 2);
  });

  it("loses no output when a program exits right after writing (50 runs each)", async () => {
    for (let run = 0; run < 50; run++) {
      expect(outputOf<BashData>(await bash("printf x; exit 3"))).toEqual({ output: "x", exit_code: 3 });
    }
    for (let run = 0; run < 50; run++) {
      const data = outputOf<BashData>(await bash("head -c 150000 /dev/zero | tr '\\0' b; exit 5"));
      expect(data.exit_code).toBe(5);
      expect(data.output.length).toBe(150_000);
    }
    for (let run = 0; run < 50; run++) {
      const envelope = await bash("head -c 1048576 /dev/zero | tr '\\0' c");
      expect((await stat(sidecarOf(envelope))).size).toBe(1_048_576);
    }
  }, 60_000);
});

describe("bash's tails", () => {
  it("never ask for more of an output's end than the spawner keeps", () => {
    // A larger tail would show the kept end short, without saying so.
    expect(TIMEOUT_TAIL_BYTES).toBeLessThanOrEqual(CAPTURED_TAIL_BYTES);
    expect(CUT_TAIL_BYTES).toBeLessThanOrEqual(CAPTURED_TAIL_BYTES);
  });
});
