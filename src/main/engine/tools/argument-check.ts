import { offload } from "../offload/offload.ts";
import { JobTimeoutError } from "../offload/worker-pool.ts";
import { validateArguments } from "./argument-validator.ts";
import type { JsonSchema } from "./contract.ts";
import { schemaPatterns } from "./schema-check.ts";

/** How long checking one call's arguments against a schema's patterns may run. */
export const ARGUMENT_CHECK_MS = 3_000;

/** Patterns quoted in the message when the check is stopped, and characters of each. */
const QUOTED_PATTERNS = 3;
const QUOTED_PATTERN_CHARS = 200;

/** What a call's arguments came to: as the tool gets them (defaults filled in), or what is wrong. */
export interface ArgumentCheck {
  args: unknown;
  invalid: string | undefined;
}

const patternsBySchema = new WeakMap<JsonSchema, readonly string[]>();

/** The distinct regular expressions a schema runs on the arguments (memoised per schema). */
function patternsOf(schema: JsonSchema): readonly string[] {
  let found = patternsBySchema.get(schema);
  if (found === undefined) {
    found = [...new Set(Array.from(schemaPatterns(schema, "schema"), (p) => p.source))];
    patternsBySchema.set(schema, found);
  }
  return found;
}

function quoted(source: string): string {
  const shown = source.length > QUOTED_PATTERN_CHARS ? `${source.slice(0, QUOTED_PATTERN_CHARS)}…` : source;
  return JSON.stringify(shown);
}

function tooSlow(toolId: string, patterns: readonly string[]): string {
  const shown = patterns.slice(0, QUOTED_PATTERNS).map(quoted).join(", ");
  const more = patterns.length > QUOTED_PATTERNS ? ` and ${patterns.length - QUOTED_PATTERNS} more` : "";
  const which = patterns.length === 1 ? `the pattern ${shown}` : `one of the patterns ${shown}${more}`;
  return `${toolId} was not run: checking its arguments against the tool's input schema was stopped after ${ARGUMENT_CHECK_MS / 1000} s, because ${which} in that schema takes too long on the value you sent (it backtracks without end on some inputs: a fault of the schema, which its author must fix). Send a value that plainly fits the pattern (shorter, without the characters it does not allow), or tell the user.`;
}

/**
 * Validate a call's arguments (see validateArguments). A schema that holds no regular expression
 * is checked here, at once. One that does is checked on a worker thread, for at most
 * ARGUMENT_CHECK_MS of its time: a pattern its author wrote can backtrack for hours on one
 * value (`^(\w+\s?)*$` on a sentence ending in "!"), which on this thread would freeze every
 * session of the process, past any timeout or abort. Rejects with the signal's reason when it aborts.
 */
export async function checkArguments(
  toolId: string,
  schema: JsonSchema,
  args: unknown,
  signal?: AbortSignal,
): Promise<ArgumentCheck> {
  const patterns = patternsOf(schema);
  if (patterns.length === 0) return { args, invalid: validateArguments(toolId, schema, args) };
  try {
    return await offload(
      "arguments.validate",
      { toolId, schema, args },
      { timeoutMs: ARGUMENT_CHECK_MS, ...(signal ? { signal } : {}) },
    );
  } catch (err) {
    if (err instanceof JobTimeoutError) return { args, invalid: tooSlow(toolId, patterns) };
    throw err;
  }
}
