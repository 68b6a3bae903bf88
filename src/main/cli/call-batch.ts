import { createInterface } from "node:readline";
import type { Session } from "../engine/index.ts";

/** One call of a batch, as it would follow `lathe call`: a tool id, then its JSON arguments. */
export interface BatchCall {
  toolId: string;
  /** The arguments as written (the pipeline parses them and says what is wrong); `{}` when none. */
  args: string;
}

/** What a batch did: how many calls it ran, and how many of their envelopes were errors. */
export interface BatchTally {
  calls: number;
  failed: number;
}

/**
 * One line of a batch: the tool id up to the first space, the JSON arguments after it (`{}`
 * when there are none). A blank line or one that starts with `#` is no call (undefined).
 */
export function parseBatchLine(line: string): BatchCall | undefined {
  const text = line.trim();
  if (text === "" || text.startsWith("#")) return undefined;
  const space = text.search(/\s/);
  if (space < 0) return { toolId: text, args: "{}" };
  return { toolId: text.slice(0, space), args: text.slice(space).trim() };
}

/**
 * Run the calls read from `input`, one per line, in `session`: one after another, in the order
 * given, each printed as one line of JSON as soon as it ends, so output line N is the envelope
 * of call N. A line that is no valid call still gets its error envelope, and the batch goes on.
 * An abort cancels the running call (its envelope says so) and reads no further line.
 */
export async function runCallBatch(
  session: Session,
  input: NodeJS.ReadableStream,
  print: (line: string) => Promise<void>,
  signal: AbortSignal,
): Promise<BatchTally> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  const stop = (): void => lines.close();
  signal.addEventListener("abort", stop, { once: true });
  const tally: BatchTally = { calls: 0, failed: 0 };
  try {
    for await (const line of lines) {
      if (signal.aborted) break;
      const call = parseBatchLine(line);
      if (!call) continue;
      const envelope = await session.call(call.toolId, call.args, { signal });
      tally.calls++;
      if (envelope.type !== "output") tally.failed++;
      await print(`${JSON.stringify(envelope)}\n`);
    }
  } finally {
    signal.removeEventListener("abort", stop);
    lines.close();
  }
  return tally;
}
