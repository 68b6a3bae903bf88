import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { JsonSchema, ToolDefinition } from "../tools/contract.ts";
import { TOOL_SEARCH_ID } from "../tools/deferral.ts";
import { modelSchema } from "../tools/model-schema.ts";
import type { ToolExposure } from "../tools/tool-exposure.ts";
import { defineBuiltin } from "./define-builtin.ts";

const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;

const DESCRIPTION = `Load deferred tools so you can call them. Deferred tools show only their names (in the system prompt): before calling one, search with words for the task ("create a github issue"), words from its name or its server's, or its exact name. Tools not deferred are already available. Found tools can be called from your next step on; if none match, try other or fewer words.`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    query: z.string().min(1),
    max_results: z.number().int().min(1).max(MAX_RESULTS).optional().describe(`Default ${DEFAULT_RESULTS}.`),
  });

/** One tool found: what the model needs to call it (its parameters as the model is shown them). */
interface FoundTool {
  id: string;
  description: string;
  parameters: JsonSchema;
}

export interface ToolSearchData {
  tools: FoundTool[];
  /** Why nothing came back, when nothing did; or which tools found were too large to load. */
  note?: string;
}

/** Characters of a query that found nothing quoted back in the note (a query may be any length). */
const QUOTED_QUERY_CHARS = 120;

function quoted(query: string): string {
  if (query.length <= QUOTED_QUERY_CHARS) return `"${query}"`;
  return `"${query.slice(0, QUOTED_QUERY_CHARS)}…" (${query.length.toLocaleString("en-US")} characters)`;
}

function nothingFound(query: string, exposure: ToolExposure): string {
  if (exposure.visibleIds().includes(query)) {
    return `${query} is not deferred: it is already available with its full definition. Call it directly.`;
  }
  if (exposure.plan().deferred.size === 0) {
    return "No tool is deferred: every tool you may use is already available with its full definition.";
  }
  return `No deferred tool matches ${quoted(query)}. Try other or fewer words, or an exact name from the deferred tools list.`;
}

/**
 * The `tool_search {query, max_results?}` built-in: finds deferred tools (substring on name and
 * description, then BM25) and returns their definitions; the session's exposure
 * (`runtime.session.exposure`: which tools are deferred, where discoveries are recorded) then
 * shows them in full from the next step on.
 */
export function toolSearchTool(): ToolDefinition<z.output<ReturnType<typeof schema>>, ToolSearchData> {
  return defineBuiltin({
    id: TOOL_SEARCH_ID,
    description: DESCRIPTION,
    schema,
    requires: {},
    readOnly: true,
    gated: false,
    kind: "search",
    deriveApprovalKey: () => TOOL_SEARCH_ID,
    execute: async ({ query, max_results }, runtime) => {
      if (query.trim() === "") {
        throw new ToolCallError(
          'query is blank. Pass a few words for what you need, e.g. {"query": "create github issue"}, or a deferred tool\'s exact name.',
        );
      }
      const exposure = runtime.session.exposure;
      const hits = exposure.search(query, { limit: max_results ?? DEFAULT_RESULTS });
      const tools: FoundTool[] = [];
      const notLoaded: string[] = [];
      // One at a time: the tools loaded so far, these included, may take only so much of the context.
      for (const hit of hits) {
        const tool = exposure.definition(hit.id);
        if (!tool) continue;
        const { id, description, parameters } = tool;
        const problem = exposure.loadProblem(id);
        if (problem !== undefined) {
          notLoaded.push(`${id} was found but not loaded: ${problem}.`);
          continue;
        }
        exposure.discover([id]);
        tools.push({ id, description, parameters: modelSchema(parameters) });
      }
      if (notLoaded.length > 0) return { tools, note: notLoaded.join(" ") };
      if (tools.length > 0) return { tools };
      return { tools, note: nothingFound(query.trim(), exposure) };
    },
  });
}
