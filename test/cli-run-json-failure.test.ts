import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { useEndpoint } from "./support/lathe-process.ts";

// `lathe run --json` read by a script: a run that fails before it starts still answers on stdout,
// with one JSON line saying why and with which exit code, the same words stderr gives a person.

const world = useCliWorld("lathe-run-json-failure-");

/** An address on this machine where nothing listens. */
async function deadEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

const CASES: Array<[what: string, args: string[], code: number, message: RegExp]> = [
  [
    "a model that names no provider",
    ["run", "hi", "--json", "--model", "nope"],
    2,
    /"nope" does not name a provider/,
  ],
  ["a bad --model given before --json", ["run", "hi", "--model", "ollama:", "--json"], 2, /names no model/],
  ["no model chosen", ["run", "hi", "--json"], 2, /^No model chosen/],
  [
    "an unknown agent",
    ["run", "hi", "--json", "--agent", "ghost", "--model", "ollama:m"],
    1,
    /no agent "ghost"/,
  ],
  [
    "a session that does not exist",
    ["run", "hi", "--json", "--resume", "s-abc-12345678"],
    1,
    /no conversation "s-abc-12345678"/,
  ],
  ["no prompt", ["run", "--json"], 2, /^missing the prompt/],
  ["an unknown option", ["run", "hi", "--json", "--modle", "x"], 2, /unknown option '--modle'/],
  [
    "a replay of a session that does not exist",
    ["run", "--json", "--resume", "s-abc-12345678", "--replay"],
    1,
    /no conversation "s-abc-12345678" to replay/,
  ],
  [
    "a model server not running",
    ["run", "hi", "--json", "--model", "openai-compatible:m"],
    1,
    /not running|ECONNREFUSED|could not reach/i,
  ],
];

describe("lathe run --json that fails before the run starts", () => {
  it.each(CASES)(
    "%s: one JSON error line on stdout with the exit code, the reason on stderr",
    async (_what, args, code, message) => {
      await useEndpoint(world.home, await deadEndpoint());
      const run = await world.lathe(args, { env: { LATHE_DAEMON: "off" } });
      expect(run.code).toBe(code);
      const lines = run.stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      const failure = JSON.parse(lines[0] ?? "") as { type: string; message: string; exitCode: number };
      expect(failure).toEqual({ type: "error", message: expect.stringMatching(message), exitCode: code });
      // A person reads the same reason on stderr.
      expect(run.stderr).toContain(`error: ${failure.message}`);
    },
  );

  it("without --json, stdout stays empty: the reason is on stderr alone", async () => {
    const run = await world.lathe(["run", "hi", "--model", "nope"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/does not name a provider/);
  });

  it("the help, asked with --json, is the help and no error", async () => {
    const run = await world.lathe(["run", "--json", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: lathe run/);
    expect(run.stdout).not.toContain('"type":"error"');
  });

  it("a prompt after -- that reads --json is a prompt, not the flag", async () => {
    const run = await world.lathe(["run", "--model", "nope", "--", "--json"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
  });
});
