import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// Ctrl-C and SIGTERM stop a command's work instead of killing the process, also once a library
// that re-raises signals nobody else listens to is loaded: node-llama-cpp (the GGUF runner)
// loads signal-exit, which killed `lathe run` and `lathe serve` outright on the first Ctrl-C.

const INTERRUPT = pathToFileURL(new URL("./interrupt.ts", import.meta.url).pathname).href;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * A child process that runs `body` (with `stopOnInterrupt` and `onStopSignals` imported), then
 * `load` (a library loaded while the command works, as `lathe run` loads the GGUF runner), and
 * prints "ready"; the test sends it `signals` one after another.
 */
async function signalled(load: string, body: string, signals: NodeJS.Signals[]): Promise<Exit> {
  const script = `const { stopOnInterrupt, onStopSignals } = await import(${JSON.stringify(INTERRUPT)});
${body}
${load}
setInterval(() => undefined, 1000);
console.log("ready");`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const pending = [...signals];
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    const sawReady = !stdout.includes("ready") && (stdout + text).includes("ready");
    const sawStopped = !stdout.includes("stopped") && (stdout + text).includes("stopped");
    stdout += text;
    if (sawReady || sawStopped) {
      const next = pending.shift();
      if (next) child.kill(next);
    }
  });
  return new Promise((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

const LIBRARIES = [
  ["no library", ""],
  ["node-llama-cpp loaded while it works", 'await import("node-llama-cpp");'],
] as const;

describe.each(LIBRARIES)("stop signals with %s", (_name, load) => {
  it.each<NodeJS.Signals>(["SIGINT", "SIGTERM"])(
    "%s aborts the work, and the process ends as the command decides",
    async (signal) => {
      const exit = await signalled(
        load,
        `const controller = new AbortController();
stopOnInterrupt(controller, { graceMs: 10_000 });
controller.signal.addEventListener("abort", () => {
  console.log("stopped: " + controller.signal.reason.message);
  setTimeout(() => process.exit(7), 50);
});`,
        [signal],
      );
      expect(exit).toMatchObject({ code: 7, signal: null });
      expect(exit.stdout).toContain(
        signal === "SIGINT" ? "stopped: interrupted (SIGINT)" : "stopped: terminated (SIGTERM)",
      );
    },
    20_000,
  );

  it("work that does not wind down in time ends with exit 1 and the command's last word on stderr", async () => {
    const exit = await signalled(
      load,
      `const controller = new AbortController();
stopOnInterrupt(controller, { graceMs: 200, lastWord: () => "stopped before the run started; nothing was recorded." });
controller.signal.addEventListener("abort", () => console.log("stopped, but the work holds on"));`,
      ["SIGINT"],
    );
    expect(exit).toMatchObject({ code: 1, signal: null });
    expect(exit.stderr).toBe("error: stopped before the run started; nothing was recorded.\n");
  }, 20_000);

  it("without a last word of its own, the process says the work was cut short", async () => {
    const exit = await signalled(load, `stopOnInterrupt(new AbortController(), { graceMs: 200 });`, [
      "SIGTERM",
    ]);
    expect(exit).toMatchObject({ code: 1, signal: null });
    expect(exit.stderr).toMatch(
      /^error: stopped before the work wound down; what was recorded so far is kept\.\n$/,
    );
  }, 20_000);

  it("a second Ctrl-C while the work winds down ends the process at once", async () => {
    const exit = await signalled(load, `onStopSignals((signal) => console.log("stopped by " + signal));`, [
      "SIGINT",
      "SIGINT",
    ]);
    expect(exit.stdout).toContain("stopped by SIGINT");
    expect(exit).toMatchObject({ code: null, signal: "SIGINT" });
  }, 20_000);

  it("once it stops listening, a signal does what it would have done", async () => {
    const exit = await signalled(
      load,
      `const stop = onStopSignals(() => console.log("wrongly handled"));
stop();`,
      ["SIGTERM"],
    );
    expect(exit.stdout).not.toContain("wrongly handled");
    expect(exit).toMatchObject({ code: null, signal: "SIGTERM" });
  }, 20_000);
});
