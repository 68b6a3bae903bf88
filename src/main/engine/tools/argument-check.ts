import { offload } from "../offload/offload.ts";
import { JobTimeoutError } from "../offload/worker-pool.ts";
import { validateArguments } from "./argument-validator.ts";
import type { JsonSchema } from "./contract.ts";
import { quickOnThisThread } from "./pattern-cost.ts";
import { schemaRegexes } from "./schema-check.ts";

/**
 * How long checking a value against a schema's patterns may run (a call's arguments, an MCP
 * tool's structured result).
 */
export const PATTERN_CHECK_MS = 3_000;

/** Patterns quoted in the message when a check is stopped, and characters of each. */
const QUOTED_PATTERNS = 3;
const QUOTED_PATTERN_CHARS = 200;

/** What a call's arguments came to: as the tool gets them (defaults filled in), or what is wrong. */
export interface ArgumentCheck {
  args: unknown;
  invalid: string | undefined;
}

function quoted(source: string): string {
  const shown = source.length > QUOTED_PATTERN_CHARS ? `${source.slice(0, QUOTED_PATTERN_CHARS)}…` : source;
  return JSON.stringify(shown);
}

/**
 * Why a check against `patterns` was stopped, to follow "checking … was stopped after 3 s, ":
 * `because the pattern "…" in that schema takes too long on …`.
 */
export function slowPatternReason(patterns: readonly string[], value: string): string {
  const shown = patterns.slice(0, QUOTED_PATTERNS).map(quoted).join(", ");
  const more = patterns.length > QUOTED_PATTERNS ? ` and ${patterns.length - QUOTED_PATTERNS} more` : "";
  const which = patterns.length === 1 ? `the pattern ${shown}` : `one of the patterns ${shown}${more}`;
  return `because ${which} in that schema takes too long on ${value} (it backtracks without end on some inputs: a fault of the schema, which its author must fix)`;
}

/**
 * Validate a call's arguments (see validateArguments). A schema that holds no regular expression
 * is checked here, at once; so is one whose every pattern is bounded on these arguments
 * (quickOnThisThread: `^[A-Z]+-[0-9]+$` on strings of a few hundred characters), which spares a
 * one-shot `lathe call` a worker's start (~0.1 s of CPU). Any other is checked on a worker
 * thread, for at most PATTERN_CHECK_MS of its time: a pattern its author wrote can backtrack for
 * hours on one value (`^(\w+\s?)*$` on a sentence ending in "!"), which on this thread would
 * freeze every session of the process, past any timeout or abort. Rejects with the signal's
 * reason when it aborts.
 */
export async function checkArguments(
  toolId: string,
  schema: JsonSchema,
  args: unknown,
  signal?: AbortSignal,
): Promise<ArgumentCheck> {
  const patterns = schemaRegexes(schema);
  if (patterns.length === 0 || quickOnThisThread(patterns, args))
    return { args, invalid: validateArguments(toolId, schema, args) };
  try {
    return await offload(
      "arguments.validate",
      { toolId, schema, args },
      { timeoutMs: PATTERN_CHECK_MS, ...(signal ? { signal } : {}) },
    );
  } catch (err) {
    if (!(err instanceof JobTimeoutError)) throw err;
    const reason = slowPatternReason(patterns, "the value you sent");
    return {
      args,
      invalid: `${toolId} was not run: checking its arguments against the tool's input schema was stopped after ${PATTERN_CHECK_MS / 1000} s, ${reason}. Send a value that plainly fits the pattern (shorter, without the characters it does not allow), or tell the user.`,
    };
  }
}
