import readline from "node:readline";
import type { Session } from "../engine/index.ts";

/** One call of a batch, as it would follow `lathe call`: a tool id, then its JSON arguments. */
export type BatchCall =
  | {
      toolId: string;
      /** The arguments as written (the pipeline parses them and says what is wrong); `{}` when none. */
      args: string;
    }
  /** A line that is no call at all, and why (what it should have been). */
  | { refused: string };

const FORMAT =
  'a batch line is a tool id, then its arguments as one JSON object, as after `lathe call` (read {"path":"a.txt"})';

/**
 * Why a line that starts as JSON is no call, and, when it names a tool and its arguments in the
 * way other tools write calls ({"tool": …, "args": …}), the line it should have been.
 */
function jsonLineRefusal(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const tool = [v["tool"], v["name"], v["toolName"]].find((t) => typeof t === "string");
    const args = [v["args"], v["arguments"], v["input"]].find(
      (a) => a !== null && typeof a === "object" && !Array.isArray(a),
    );
    if (typeof tool === "string" && /^[\w.-]+$/.test(tool)) {
      return `This line is a JSON object, not a call: ${FORMAT}. Write it as: ${tool} ${JSON.stringify(args ?? {})}`;
    }
  }
  return `This line starts with "${text[0]}", not a tool id: ${FORMAT}.`;
}

/** What a batch did: how many calls it ran, and how many of their envelopes were errors. */
export interface BatchTally {
  calls: number;
  failed: number;
  /** Why the batch stopped early: its session was deleted or closed by another process. */
  lost?: string;
}

/**
 * One line of a batch: the tool id up to the first space, the JSON arguments after it (`{}`
 * when there are none). A blank line or one that starts with `#` is no call (undefined).
 */
export function parseBatchLine(line: string): BatchCall | undefined {
  const text = line.trim();
  if (text === "" || text.startsWith("#")) return undefined;
  if (text.startsWith("{") || text.startsWith("[")) return { refused: jsonLineRefusal(text) };
  const space = text.search(/\s/);
  if (space < 0) return { toolId: text, args: "{}" };
  return { toolId: text.slice(0, space), args: text.slice(space).trim() };
}

/** Changes to the tools (a plugin folder edited, an MCP server's new list) waiting to be applied. */
export interface PendingToolChanges {
  pending(): boolean;
  /** Apply them; called only while no call of the batch runs. */
  apply(): Promise<void>;
}

/** How many calls a batch has issued whose envelopes are not printed yet, at most. */
export const BATCH_WINDOW = 16;

/**
 * Run the calls read from `input`, one per line, in `session`, and print each envelope as one line
 * of JSON, in the order given: output line N is the envelope of call N, printed as soon as calls 1
 * to N have ended. Each call is issued as its line is read, so the session's scheduler orders them
 * as in an agent's turn: reads run side by side, and a call that changes something waits for every
 * call before it and holds back every call after it. At most BATCH_WINDOW calls are waiting to be
 * printed; reading waits beyond that. A line that is no valid call still gets its error envelope,
 * and the batch goes on. An abort cancels the calls still running (their envelopes say so) and
 * reads no further line; so does a session deleted or closed by another process (`tally.lost`).
 * When `changes` has some waiting as a line is read, the calls still running end first, then the
 * changes are applied and the line's call meets the tools as they are now (a plugin edited during
 * the batch runs its new code), never a registry that changes under a running call.
 */
export async function runCallBatch(
  session: Session,
  input: NodeJS.ReadableStream,
  print: (line: string) => Promise<void>,
  signal: AbortSignal,
  changes?: PendingToolChanges,
): Promise<BatchTally> {
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  const stop = (): void => lines.close();
  signal.addEventListener("abort", stop, { once: true });
  const tally: BatchTally = { calls: 0, failed: 0 };
  // One promise per issued call, settled once its envelope is printed (each after the one before).
  const printing: Promise<void>[] = [];
  /** The calls issued and not yet ended. */
  const running = new Set<Promise<unknown>>();
  let failure: { error: unknown } | undefined;
  try {
    for await (const line of lines) {
      // A session deleted under the batch fails every call alike: its first says why, then it stops.
      if (signal.aborted || failure || session.lost !== undefined) break;
      const call = parseBatchLine(line);
      if (!call) continue;
      if (changes?.pending() && !("refused" in call)) {
        await Promise.allSettled([...running]);
        await changes.apply();
      }
      const envelope =
        "refused" in call
          ? Promise.resolve({
              type: "error" as const,
              error_text: call.refused,
              metadata: { duration_ms: 0 },
            })
          : session.call(call.toolId, call.args, { signal });
      running.add(envelope);
      const ended = (): void => void running.delete(envelope);
      envelope.then(ended, ended);
      const printed = (printing.at(-1) ?? Promise.resolve()).then(async () => {
        const result = await envelope;
        tally.calls++;
        if (result.type !== "output") tally.failed++;
        await print(`${JSON.stringify(result)}\n`);
      });
      // A call or a print that throws stops the batch: its error is thrown once all have settled.
      printed.catch((error: unknown) => (failure ??= { error }));
      printing.push(printed);
      if (printing.length > BATCH_WINDOW) await printing.shift()?.catch(() => undefined);
    }
    await Promise.allSettled(printing);
    if (failure) throw failure.error;
    if (session.lost !== undefined) tally.lost = session.lost;
  } finally {
    signal.removeEventListener("abort", stop);
    lines.close();
  }
  return tally;
}
