import { APICallError } from "ai";
import type { ResolvedModel } from "./provider-registry.ts";

const TOOLS_UNSUPPORTED = [
  /does not support tools/i,
  /does not support (?:function|tool) call/i,
  /tools? (?:are|is) not supported/i,
  /tool (?:use|calling|calls) (?:is )?not supported/i,
  /"?tool_choice"? requires --enable-auto-tool-choice/i,
  /tools param requires --jinja/i,
];

/** Whether a model call failed because the model (or its server) cannot take tools. */
export function isToolsUnsupported(error: unknown): boolean {
  if (!APICallError.isInstance(error)) return false;
  const text = `${error.message} ${error.responseBody ?? ""}`;
  return TOOLS_UNSUPPORTED.some((re) => re.test(text));
}

/** The response body, when it says more than the message already does. */
function bodyOf(error: APICallError): string {
  const body = error.responseBody?.trim();
  if (!body || error.message.includes(body)) return "";
  return `: ${body.length > 500 ? `${body.slice(0, 500)}…` : body}`;
}

/** What a failed model call tells the user: the provider's explanation if it has one, else the HTTP status and body. */
export function describeModelFailure(error: unknown, model: ResolvedModel): string {
  const explained = model.explainError?.(error);
  if (explained) return explained;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode === undefined ? "" : ` (HTTP ${error.statusCode})`;
    return `The model call failed${status}: ${error.message}${bodyOf(error)}`;
  }
  return error instanceof Error ? error.message : String(error);
}
