import { ToolCallError } from "../errors/tool-call-error.ts";
import { offload } from "../offload/offload.ts";
import { JobTimeoutError } from "../offload/worker-pool.ts";
import { PATTERN_CHECK_MS, slowPatternReason } from "../tools/argument-check.ts";
import type { JsonSchema } from "../tools/contract.ts";
import { quickOnThisThread } from "../tools/pattern-cost.ts";
import { schemaRegexes } from "../tools/schema-check.ts";

/**
 * Check a plugin's result against its output_schema when that schema holds a regular expression:
 * on a worker thread, for at most PATTERN_CHECK_MS (a pattern can backtrack for hours on one
 * value, which on this thread would freeze every session). Throws ToolCallError, blaming the
 * plugin, when the result does not fit or the check was stopped. Returns false without checking
 * when the schema holds no pattern, or none whose cost on this value is unbounded
 * (quickOnThisThread): the caller checks it on the spot.
 */
export async function checkOutputOffThread(
  toolId: string,
  entryFile: string,
  schema: JsonSchema,
  value: unknown,
  signal: AbortSignal,
): Promise<boolean> {
  const patterns = schemaRegexes(schema);
  if (patterns.length === 0 || quickOnThisThread(patterns, value)) return false;
  try {
    await offload(
      "plugin.outputCheck",
      { toolId, entryFile, schema, value },
      { timeoutMs: PATTERN_CHECK_MS, signal },
    );
  } catch (err) {
    if (err instanceof JobTimeoutError) {
      throw new ToolCallError(
        `${toolId} returned a result, but checking it against its output_schema was stopped after ${PATTERN_CHECK_MS / 1000} s, ${slowPatternReason(patterns, "a value in it")}. This is a bug in the plugin (${entryFile}), not in the call; do not retry it, tell the user.`,
        "plugin_output",
      );
    }
    // The worker's ToolCallError arrives as a JobError carrying its message and code.
    const { message, code } = err as { message?: string; code?: string };
    if (code === "plugin_output") throw new ToolCallError(String(message), "plugin_output");
    throw err;
  }
  return true;
}
