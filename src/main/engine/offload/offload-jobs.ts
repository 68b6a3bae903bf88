// The jobs an offload worker runs (see offload.ts), by name. Each is a plain function of one
// structured-cloneable input; the main thread imports this file only for its types.
import { editText } from "../builtin/edit-text.ts";
import { grepFiles } from "../builtin/grep-files.ts";
import { readText } from "../builtin/read-text.ts";
import { inspectExisting } from "../builtin/write-inspect.ts";
import { listJson, textJson, writePayload } from "../plugins/bridge-text.ts";
import type { LargeResultInput } from "../plugins/plugin-output.ts";
import type { OutputCheckInput } from "../plugins/plugin-output-schema.ts";
import type { JsonSchema } from "../tools/contract.ts";

export const JOBS = {
  /** JSON text of any size, parsed; the value comes back as a structured clone. */
  "json.parse": (input: { json: string }): unknown => JSON.parse(input.json),
  // Checks against a schema holding a pattern (tools/argument-check.ts); ajv loads with the first.
  "arguments.validate": async (input: { toolId: string; schema: JsonSchema; args: unknown }) =>
    (await import("../tools/argument-validator.ts")).validateCopy(input),
  "mcp.structuredResult": async (input: { schema: JsonSchema; structured: unknown }) =>
    (await import("../mcp/mcp-output-schema.ts")).structuredResultProblemOfCopy(input),
  "edit.text": editText,
  "grep.files": grepFiles,
  "read.text": readText,
  "write.inspect": inspectExisting,
  // The converter (turndown and its DOM) loads on the first page, not with every worker.
  "web.htmlToMarkdown": async (input: { html: string; baseUrl: string }) =>
    (await import("../builtin/web/html-to-text.ts")).htmlToMarkdown(input.html, input.baseUrl),
  "plugin.textJson": textJson,
  "plugin.writePayload": writePayload,
  "plugin.listJson": listJson,
  "plugin.outputCheck": async (input: OutputCheckInput) =>
    (await import("../plugins/plugin-output-schema.ts")).checkOutputCopy(input),
  // ajv loads with the first large result, not with every worker.
  "plugin.largeResult": async (input: LargeResultInput) =>
    (await import("../plugins/plugin-output.ts")).settleLargeResult(input),
};
