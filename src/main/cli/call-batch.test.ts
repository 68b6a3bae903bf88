import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Envelope, Session } from "../engine/index.ts";
import { BATCH_WINDOW, parseBatchLine, runCallBatch } from "./call-batch.ts";

describe("a line of lathe batch", () => {
  it.each([
    ["a tool and its arguments", 'read {"path":"a.txt"}', { toolId: "read", args: '{"path":"a.txt"}' }],
    ["a tool alone: no arguments", "glob", { toolId: "glob", args: "{}" }],
    [
      "spaces around and between",
      '  read \t {"path":"a b.txt"}  ',
      { toolId: "read", args: '{"path":"a b.txt"}' },
    ],
    ["a Windows line end", 'read {"path":"a.txt"}\r', { toolId: "read", args: '{"path":"a.txt"}' }],
    [
      "arguments that are not JSON: kept for the pipeline to refuse",
      "read a.txt",
      { toolId: "read", args: "a.txt" },
    ],
    [
      "JSON stuck to the id: one word, an unknown tool",
      'read{"path":"a"}',
      { toolId: 'read{"path":"a"}', args: "{}" },
    ],
    ["a blank line", "", undefined],
    ["only spaces", " \t ", undefined],
    ["a comment", '# read {"path":"a.txt"}', undefined],
    ["an indented comment", "   # later", undefined],
    [
      "a JSON object naming the tool and its arguments: the line it should have been",
      '{"tool":"read","args":{"path":"a.txt"}}',
      {
        refused:
          'This line is a JSON object, not a call: a batch line is a tool id, then its arguments as one JSON object, as after `lathe call` (read {"path":"a.txt"}). Write it as: read {"path":"a.txt"}',
      },
    ],
    [
      "the same with other common field names",
      ' {"name":"glob","arguments":{"pattern":"*.md"}}',
      { refused: expect.stringMatching(/Write it as: glob \{"pattern":"\*\.md"\}$/) },
    ],
    [
      "other JSON",
      '["read","a.txt"]',
      {
        refused: expect.stringMatching(
          /^This line starts with "\[", not a tool id: a batch line is a tool id/,
        ),
      },
    ],
  ])("%s", (_name, line, expected) => {
    expect(parseBatchLine(line)).toEqual(expected);
  });
});

/** A session whose calls end when the test says so: `calls` lists them in the order issued. */
function heldSession() {
  const calls: { line: string; end: (type?: "output" | "error") => void }[] = [];
  const session = {
    call: (toolId: string, args: string) =>
      new Promise<Envelope>((resolve) =>
        calls.push({
          line: `${toolId} ${args}`,
          end: (type = "output") =>
            resolve(
              type === "output"
                ? { type, data: `${toolId} ${args}`, metadata: { duration_ms: 0 } }
                : { type, error_text: "no", metadata: { duration_ms: 0 } },
            ),
        }),
      ),
  };
  return { session: session as unknown as Session, calls };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A batch running in `session`, reading `input` and collecting what it prints. */
function started(session: Session) {
  const input = new PassThrough();
  const printed: string[] = [];
  const done = runCallBatch(session, input, async (l) => void printed.push(l), new AbortController().signal);
  return { input, printed, done };
}

describe("runCallBatch", () => {
  it("issues each call as its line is read and prints the envelopes in the order given", async () => {
    const { session, calls } = heldSession();
    const { input, printed, done } = started(session);
    input.write('read {"path":"a"}\nread {"path":"b"}\nglob\n');
    await tick();
    // All three are running at once (the session's scheduler decides what may overlap).
    expect(calls.map((c) => c.line)).toEqual(['read {"path":"a"}', 'read {"path":"b"}', "glob {}"]);
    calls[2]?.end();
    calls[1]?.end("error");
    await tick();
    expect(printed).toEqual([]); // the first has not ended: nothing may jump ahead of it
    calls[0]?.end();
    await tick();
    expect(printed.map((l) => (JSON.parse(l) as { data?: string }).data ?? "error")).toEqual([
      'read {"path":"a"}',
      "error",
      "glob {}",
    ]);
    input.end();
    expect(await done).toEqual({ calls: 3, failed: 1 });
  });

  it("applies tool changes that wait before the next call, once the calls running have ended, never under one", async () => {
    const { session, calls } = heldSession();
    const input = new PassThrough();
    const log: string[] = [];
    let waiting = false;
    const done = runCallBatch(session, input, async () => undefined, new AbortController().signal, {
      pending: () => waiting,
      apply: async () => {
        log.push(`applied with ${calls.length} issued`);
        waiting = false;
      },
    });
    input.write("stamp\n");
    await tick();
    waiting = true; // the plugin was edited while the first call runs
    input.write("stamp\n");
    await tick();
    // The second call waits: the first still runs on the old tools.
    expect(calls).toHaveLength(1);
    expect(log).toEqual([]);
    calls[0]?.end();
    await tick();
    expect(log).toEqual(["applied with 1 issued"]);
    expect(calls).toHaveLength(2);
    calls[1]?.end();
    input.end();
    expect(await done).toEqual({ calls: 2, failed: 0 });
  });

  it(`reads no further while ${BATCH_WINDOW} envelopes wait to be printed`, async () => {
    const { session, calls } = heldSession();
    const input = new PassThrough();
    const done = runCallBatch(session, input, async () => undefined, new AbortController().signal);
    input.end(Array.from({ length: BATCH_WINDOW + 5 }, (_, i) => `read {"path":"${i}"}\n`).join(""));
    await tick();
    expect(calls).toHaveLength(BATCH_WINDOW + 1);
    calls[0]?.end();
    await tick();
    expect(calls).toHaveLength(BATCH_WINDOW + 2);
    for (let i = 1; i < BATCH_WINDOW + 5; i++) {
      calls[i]?.end();
      await tick();
    }
    expect(await done).toEqual({ calls: BATCH_WINDOW + 5, failed: 0 });
  });

  it("stops at a call that throws, and throws its error once the others have settled", async () => {
    let n = 0;
    const session = {
      call: async () => {
        n++;
        if (n === 1) throw new Error("the database is gone");
        return { type: "output", data: "x", metadata: { duration_ms: 0 } };
      },
    } as unknown as Session;
    const { input, printed, done } = started(session);
    input.write("glob\n");
    await tick();
    input.end("glob\nglob\n");
    await expect(done).rejects.toThrow("the database is gone");
    expect(printed).toEqual([]);
  });
});
