import { spawn } from "node:child_process";
import http from "node:http";
import { mkdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import type { FixtureOptions, FixtureServer } from "./fixtures/openai-compatible-server.ts";
import { useCliWorld } from "./support/cli-world.ts";
import { LATHE_BIN, type Run } from "./support/lathe-cli.ts";

// `lathe run` as users run it, against a loopback OpenAI-compatible server: the real provider
// client (@ai-sdk/openai-compatible) parses the server-sent events, tool-call deltas included.

const world = useCliWorld("lathe-run-", {
  setup: async () => {
    await writeFile(path.join(world.root, "a.txt"), "alpha\n");
    await writeFile(path.join(world.root, "b.txt"), "beta\n");
  },
});

/** Start the fixture and point the openai-compatible provider at it in the user's settings. */
function serve(options: FixtureOptions): Promise<FixtureServer> {
  return world.serve({ models: ["fixture-model"], ...options });
}

const MODEL = ["--model", "openai-compatible:fixture-model"];
const lathe = (args: string[], input?: string): Promise<Run> => world.lathe(args, input ? { input } : {});

function jsonl(run: Run): RunEvent[] {
  return run.stdout
    .trimEnd()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RunEvent);
}

const COMBINE: FixtureOptions["replies"] = (request, index) => {
  if (index === 0) {
    return {
      text: "Reading both files.",
      toolCalls: [
        { name: "read", arguments: { path: "a.txt" } },
        { name: "read", arguments: { path: "b.txt" } },
      ],
    };
  }
  if (index === 1) {
    const contents = request.messages
      .filter((m) => m.role === "tool")
      .map((m) => (JSON.parse(String(m.content)) as { data: { content: string } }).data.content);
    return { toolCalls: [{ name: "write", arguments: { path: "c.txt", content: contents.join("") } }] };
  }
  return { text: "c.txt now holds both files." };
};

describe("lathe run against an OpenAI-compatible server", () => {
  it("finishes a multi-step task: parallel reads, then a write of what it read", async () => {
    const fixture = await serve({ replies: COMBINE });
    const run = await lathe(["run", "Combine a.txt and b.txt into c.txt", ...MODEL, "--mode", "yolo"]);

    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Reading both files.\nc.txt now holds both files.\n");
    expect(await readFile(path.join(world.root, "c.txt"), "utf8")).toBe("alpha\nbeta\n");
    expect(run.stderr).toContain('▸ read {"path":"a.txt"}');
    expect(run.stderr).toContain("✓ write");
    expect(run.stderr).toMatch(/done in 3 steps, \d+ tokens\. Continue with: lathe run --resume s-/);
    // What the model was offered and what it read back.
    const [first, second] = fixture.requests;
    expect(first?.stream).toBe(true);
    expect(first?.tools?.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(["read", "write", "glob", "grep", "edit"]),
    );
    expect(first?.messages[0]).toMatchObject({ role: "system" });
    expect(first?.messages[1]).toEqual({ role: "user", content: "Combine a.txt and b.txt into c.txt" });
    const toolMessage = second?.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(toolMessage?.content))).toMatchObject({
      type: "output",
      data: { path: "a.txt", content: "alpha\n" },
    });
  });

  it("prints JSONL events with --json: text, tool calls, results, approvals, and the finish with usage", async () => {
    await serve({ replies: COMBINE });
    const run = await lathe(["run", "Combine them", ...MODEL, "--mode", "yolo", "--json"]);
    expect(run.code).toBe(0);
    const events = jsonl(run);
    expect(events[0]).toMatchObject({
      type: "start",
      agent: "default",
      model: "openai-compatible:fixture-model",
      resumed: false,
    });
    const types = new Set(events.map((e) => e.type));
    for (const type of ["text", "tool-call", "tool-result", "approval", "step-finish", "finish"])
      expect(types).toContain(type);
    expect(
      events.filter((e) => e.type === "tool-call").map((e) => e.type === "tool-call" && e.toolName),
    ).toEqual(["read", "read", "write"]);
    expect(events.find((e) => e.type === "approval")).toMatchObject({
      toolName: "write",
      decision: "allow",
      reason: "yolo mode",
    });
    expect(events.at(-1)).toEqual({
      type: "finish",
      status: "completed",
      finishReason: "stop",
      steps: 3,
      usage: expect.objectContaining({ inputTokens: 30, outputTokens: 15, totalTokens: 45 }),
    });
  });

  it("denies a gated call headless in ask mode; the model is told and finishes without it", async () => {
    const fixture = await serve({
      replies: [
        { toolCalls: [{ name: "write", arguments: { path: "c.txt", content: "x" } }] },
        { text: "I was not allowed to write c.txt." },
      ],
    });
    const run = await lathe(["run", "Write c.txt", ...MODEL, "--json"]);
    expect(run.code).toBe(0);
    const approval = jsonl(run).find((e) => e.type === "approval");
    expect(approval).toMatchObject({ toolName: "write", decision: "deny" });
    await expect(readFile(path.join(world.root, "c.txt"))).rejects.toThrow();
    const refusal = fixture.requests[1]?.messages.find((m) => m.role === "tool");
    expect(String(refusal?.content)).toContain("headless");
  });

  it("falls back to a plain chat, with a notice, when the server refuses tools", async () => {
    await serve({
      replies: (request) =>
        request.tools?.length
          ? {
              status: 400,
              body: JSON.stringify({
                error: { message: "registry.ollama.ai/library/gemma:2b does not support tools" },
              }),
            }
          : { text: "Hi! I can only chat." },
    });
    const run = await lathe(["run", "Hello", ...MODEL]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hi! I can only chat.\n");
    expect(run.stderr).toContain("does not support tool calls, so this is a plain chat");
  });

  it("says clearly when nothing runs at the endpoint, and exits 1", async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({ providers: { ollama: { baseURL: `http://127.0.0.1:${port}/v1` } } }),
    );
    const run = await lathe(["run", "Hello", "--model", "ollama:llama3.2"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Ollama is not running on http://127.0.0.1:${port}: start it with \`ollama serve\` or pick another provider`,
    );
    expect(run.stdout).toBe("");
  });

  it("a replay of a run still going on says so (not that it crashed) and exits 1: it has not finished", async () => {
    const fixture = await serve({
      replies: (_request, index) =>
        index === 0
          ? { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "one\n" } }] }
          : { text: "Thinking very hard", hang: true },
    });
    const child = spawn(
      process.execPath,
      [LATHE_BIN, "run", "Write notes", ...MODEL, "--mode", "yolo", "--json"],
      {
        cwd: world.root,
        env: { ...process.env, LATHE_HOME: world.home },
      },
    );
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
    try {
      await fixture.requestArrived(2);
      const start = jsonl({ code: null, signal: null, stdout, stderr: "" })[0];
      const sessionId = start?.type === "start" ? start.sessionId : "";
      const replay = await lathe(["run", "--resume", sessionId, "--replay"]);
      expect(replay.code).toBe(1);
      expect(replay.stderr).toMatch(
        new RegExp(
          `lathe: this run is still going on, by another Lathe process \\(pid ${child.pid} on .*\\)\\.\n$`,
        ),
      );
      expect(replay.stderr).not.toContain("killed or crashed");
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  });

  it("resumes a session killed mid-run from its last complete message", async () => {
    const fixture = await serve({
      replies: (request, index) => {
        if (index === 0)
          return { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "one\n" } }] };
        if (index === 1) return { text: "Thinking very hard", hang: true };
        return { text: "Picked up where I left off." };
      },
    });
    const child = spawn(
      process.execPath,
      [LATHE_BIN, "run", "Write notes", ...MODEL, "--mode", "yolo", "--json"],
      {
        cwd: world.root,
        env: { ...process.env, LATHE_HOME: world.home },
      },
    );
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("close", (_code, signal) => resolve(signal)),
    );
    await fixture.requestArrived(2);
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const start = jsonl({ code: null, signal: null, stdout, stderr: "" })[0];
    expect(start?.type).toBe("start");
    const sessionId = start?.type === "start" ? start.sessionId : "";
    expect(await readFile(path.join(world.root, "notes.txt"), "utf8")).toBe("one\n");
    // Its last run recorded no end (killed): a replay exits 1, as a run stopped early does.
    expect((await lathe(["run", "--resume", sessionId, "--replay", "--json"])).code).toBe(1);

    const resumed = await lathe(["run", "Carry on", "--resume", sessionId, "--json"]);
    expect(resumed.code).toBe(0);
    expect(jsonl(resumed)[0]).toMatchObject({
      type: "start",
      sessionId,
      resumed: true,
      model: "openai-compatible:fixture-model",
    });
    const history = fixture.requests[2]?.messages ?? [];
    expect(history.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(JSON.stringify(history)).toContain("notes.txt");
    expect(JSON.stringify(history)).not.toContain("Thinking very hard");
    expect(history.at(-1)).toEqual({ role: "user", content: "Carry on" });

    // Read by a person, the replay says the killed run recorded no end, and how the next one ended.
    const replay = await lathe(["run", "--resume", sessionId, "--replay"]);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toMatch(
      / {2}✓ write .*\nlathe: this run recorded no end: its process was killed or crashed\.\nlathe: done in 1 step, \d+ tokens\.\n$/,
    );
  });

  it("says how to go on when the conversation outgrows the context: a rewind it names works, not --resume", async () => {
    const TOO_LONG = {
      status: 400,
      body: JSON.stringify({
        error: {
          code: 400,
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error",
        },
      }),
    };
    // The summary Lathe asks for to make room is refused as too long as well.
    const fixture = await serve({
      replies: (request, index) =>
        index === 0
          ? { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "one\n" } }] }
          : index === 1
            ? { text: "Wrote it." }
            : index === 2 || index === 3
              ? TOO_LONG
              : { text: "Back at the first answer." },
    });
    const first = await lathe(["run", "Write notes", ...MODEL, "--mode", "yolo", "--json"]);
    const sessionId = (jsonl(first)[0] as Extract<RunEvent, { type: "start" }>).sessionId;

    const full = await lathe(["run", "Now paste the whole manual in", "--resume", sessionId]);
    expect(full.code).toBe(1);
    expect(full.stderr).toContain("error: The conversation no longer fits the context of fixture-model");
    expect(full.stderr).toContain(
      "Lathe could not summarise the older conversation to make room: the request for a summary failed",
    );
    // Resuming as it is would send the same conversation: the CLI offers the ways that work.
    expect(full.stderr).not.toContain("--resume");
    const rewind = /lathe rewind --session (\S+) --before (\d+)\n/.exec(full.stderr);
    expect(rewind?.[1]).toBe(sessionId);

    const back = await lathe(["rewind", "--session", sessionId, "--before", rewind?.[2] ?? ""]);
    expect(back.code).toBe(0);
    const again = await lathe(["run", "Carry on", "--resume", sessionId]);
    expect(again.code).toBe(0);
    expect(fixture.requests[4]?.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(await readFile(path.join(world.root, "notes.txt"), "utf8")).toBe("one\n");
  });

  it("suggests no rewind when the first prompt already does not fit, only a new session", async () => {
    await serve({
      replies: [
        {
          status: 400,
          body: JSON.stringify({ error: { message: "prompt is too long: 9000 tokens > 8192 maximum" } }),
        },
      ],
    });
    const run = await lathe(["run", "Everything at once", ...MODEL]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /lathe: failed\. Resumed as it is, the conversation fails the same way: start a new session with lathe run "<prompt>"\n$/,
    );
  });

  it("replays a session's events without calling the model or any tool", async () => {
    const fixture = await serve({ replies: COMBINE });
    const run = await lathe(["run", "Combine them", ...MODEL, "--mode", "yolo", "--json"]);
    const sessionId = (jsonl(run)[0] as Extract<RunEvent, { type: "start" }>).sessionId;
    await rm(path.join(world.root, "c.txt"));
    const requests = fixture.requests.length;

    const replay = await lathe(["run", "--resume", sessionId, "--replay", "--json"]);
    expect(replay.code).toBe(0);
    const replayed = jsonl(replay);
    expect(replayed.filter((e) => e.type !== "text")).toEqual(jsonl(run).filter((e) => e.type !== "text"));
    expect(fixture.requests).toHaveLength(requests);
    await expect(readFile(path.join(world.root, "c.txt"))).rejects.toThrow();
    const text = await lathe(["run", "--resume", sessionId, "--replay"]);
    expect(text.stdout).toBe("Reading both files.\nc.txt now holds both files.\n");
  });

  it("marks a text cut off at the length limit in --json, live and in the replay", async () => {
    await serve({ replies: [{ text: "The first half of", finishReason: "length" }] });
    const run = await lathe(["run", "Explain", ...MODEL, "--json"]);
    expect(run.code).toBe(1);
    const events = jsonl(run);
    const texts = events.filter((e) => e.type === "text");
    expect(texts.at(-1)).toEqual({ type: "text", step: 0, text: "", cutOff: true });
    expect(texts.map((t) => t.text).join("")).toBe("The first half of");
    const sessionId = (events[0] as Extract<RunEvent, { type: "start" }>).sessionId;
    const replay = await lathe(["run", "--resume", sessionId, "--replay", "--json"]);
    expect(replay.code).toBe(run.code);
    const replayed = jsonl(replay).filter((e) => e.type === "text");
    expect(replayed.at(-1)).toMatchObject({ type: "text", cutOff: true });
    expect(replayed.map((t) => t.text).join("")).toBe("The first half of");
  });

  it("a human replay says how each run ended and marks a cut text, as the live run did", async () => {
    await serve({
      replies: [{ text: "All done." }, { text: "The first half of", finishReason: "length" }],
    });
    const first = await lathe(["run", "One", ...MODEL, "--json"]);
    const sessionId = (jsonl(first)[0] as Extract<RunEvent, { type: "start" }>).sessionId;
    const live = await lathe(["run", "Two", ...MODEL, "--resume", sessionId]);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain("lathe: [the text above was cut off here: the model did not finish it]\n");
    const replay = await lathe(["run", "--resume", sessionId, "--replay"]);
    // The session's last run failed: the replay exits as it did.
    expect(replay.code).toBe(1);
    expect(replay.stdout).toBe("All done.\nThe first half of\n");
    expect(replay.stderr).toMatch(
      /^lathe: done in 1 step, \d+ tokens\.\nlathe: \[the text above was cut off here: the model did not finish it\]\nerror: .*cut off.*\nlathe: failed, \d+ tokens\.\n$/,
    );
  });

  it("resumes a session in its own folder from anywhere, and refuses another --root", async () => {
    const fixture = await serve({ replies: [{ text: "First." }, { text: "Second." }] });
    const first = await lathe(["run", "One", ...MODEL, "--json"]);
    const sessionId = (jsonl(first)[0] as Extract<RunEvent, { type: "start" }>).sessionId;
    const elsewhere = await world.lathe(["run", "Two", "--resume", sessionId], { cwd: os.tmpdir() });
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.stdout).toBe("Second.\n");
    expect(String(fixture.requests[1]?.messages[0]?.content)).toContain(`Workspace root: ${world.root}`);
    const wrong = await world.lathe(["run", "Three", "--resume", sessionId, "--root", world.home]);
    // The session is there, in another folder than --root: a failure (exit 1), as for every
    // command given a session of another folder; a --root that does not exist is the usage error.
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`Session ${sessionId} works in ${world.root}`);
    // A replay follows the same rule: from anywhere it shows the session, but a --root of another
    // folder is refused, naming the session's folder, and shows nothing.
    const replayElsewhere = await world.lathe(["run", "--resume", sessionId, "--replay"], {
      cwd: os.tmpdir(),
    });
    expect(replayElsewhere.code).toBe(0);
    expect(replayElsewhere.stdout).toBe("First.\nSecond.\n");
    const replayWrong = await world.lathe(["run", "--resume", sessionId, "--replay", "--root", world.home]);
    expect(replayWrong.code).toBe(1);
    expect(replayWrong.stdout).toBe("");
    expect(replayWrong.stderr).toContain(
      `Session ${sessionId} works in ${world.root}, not ${await realpath(world.home)}. Leave out --root to replay it there.`,
    );
  });

  it("runs a project agent once the folder is trusted, with its tool policy", async () => {
    const fixture = await serve({ replies: [{ text: "Looked." }] });
    await mkdir(path.join(world.root, ".lathe", "agents"), { recursive: true });
    await writeFile(
      path.join(world.root, ".lathe", "agents", "reader.md"),
      "---\ndescription: Only reads.\nmodel: openai-compatible:fixture-model\ntools:\n  allow: [read, glob]\n---\nYou only read.\n",
    );
    // Not loaded from a folder not trusted: the agent named is not there (exit 1, as for an id
    // that names nothing), and the error says how to load it.
    const untrusted = await lathe(["run", "Look", "--agent", "reader"]);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('There is no agent "reader"');
    expect(untrusted.stderr).toContain("lathe trust --root");
    expect((await lathe(["trust", "--root", world.root])).code).toBe(0);
    const run = await lathe(["run", "Look", "--agent", "reader"]);
    expect(run.code).toBe(0);
    expect(fixture.requests[0]?.tools?.map((t) => t.function.name).sort()).toEqual(["glob", "read"]);
    expect(String(fixture.requests[0]?.messages[0]?.content)).toContain("You only read.");
  });
});

describe("lathe run's command line: usage errors exit 2, an id that names nothing exits 1", () => {
  it.each([
    [["run"], "missing the prompt"],
    [["run", "hi", "--model", "llama3"], "does not name a provider"],
    [["run", "hi", "--model", "gguf"], 'the ":MODEL" part is missing. Write gguf:<file.gguf>'],
    [["run", "hi", "--model", "GGUF:/m/x.gguf"], 'provider names are lower-case. Write "gguf:/m/x.gguf".'],
    [["run", "hi", "--model", "nope:m"], 'There is no model provider "nope"'],
    [["run", "hi", "--agent", "../ghost", "--model", "ollama:m"], 'Agent id "../ghost" is invalid'],
    [["run", "hi", "--resume", "s/unknown"], 'Session id "s/unknown" is invalid'],
    [["run", "--replay"], "--replay needs --resume"],
    [["run", "hi", "--mode", "maybe", "--model", "ollama:m"], "argument 'maybe' is invalid"],
    [
      ["run", "hi"],
      "No model chosen: pass --model PROVIDER:MODEL (e.g. --model ollama:llama3.2, or --model gguf:<file.gguf> to run a local file in-process), or set",
    ],
  ])("lathe %j", async (args, says) => {
    const run = await lathe(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(says);
    expect(run.stdout).toBe("");
  });

  it("a well-formed --agent that names no agent is a failure (exit 1), as a session id that names none is", async () => {
    const run = await lathe(["run", "hi", "--agent", "ghost", "--model", "ollama:m"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('There is no agent "ghost". Agents: default.');
    expect(run.stdout).toBe("");
  });

  it("reads the prompt from stdin with -", async () => {
    const fixture = await serve({ replies: [{ text: "Got it." }] });
    const run = await lathe(["run", "-", ...MODEL], "From stdin\n");
    expect(run.code).toBe(0);
    expect(fixture.requests[0]?.messages[1]).toEqual({ role: "user", content: "From stdin" });
  });
});
