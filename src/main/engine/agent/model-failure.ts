import { APICallError, InvalidResponseDataError, JSONParseError, RetryError, TypeValidationError } from "ai";
import type { ResolvedModel } from "./provider-registry.ts";
import { errorMessage } from "../errors/error-message.ts";

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
  if (!body || error.message.includes(body) || body.includes(error.message)) return "";
  return `: ${body.length > 500 ? `${body.slice(0, 500)}…` : body}`;
}

function snippet(text: string | undefined): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/**
 * What a failed model call tells the user, naming the endpoint: the provider's explanation if it
 * has one (not running, connection dropped), else what the server did — an HTTP error with its
 * body, an answer that is not the API's format, an answer cut short. Retries are looked through.
 */
export function describeModelFailure(error: unknown, model: ResolvedModel): string {
  const retried = RetryError.isInstance(error) ? error : undefined;
  const cause = retried ? retried.lastError : error;
  const tries = retried ? ` (${retried.errors.length} attempts)` : "";
  const explained = model.explainError?.(cause);
  if (explained) return explained;
  const who = model.endpoint ?? `The ${model.spec.provider} provider`;
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode === undefined ? "failed" : `answered HTTP ${cause.statusCode}`;
    return `${who} ${status}${tries}: ${cause.message}${bodyOf(cause)}`;
  }
  if (JSONParseError.isInstance(cause) || TypeValidationError.isInstance(cause)) {
    const got = JSONParseError.isInstance(cause) ? cause.text : JSON.stringify(cause.value);
    return `${who} sent something that is not a model answer ("${snippet(got)}"): check that its address points at the API itself (for an OpenAI-compatible server, the base URL usually ends in /v1).`;
  }
  if (InvalidResponseDataError.isInstance(cause) && /without a finish reason/i.test(cause.message)) {
    return `${who} ended the answer before it was complete: the server may have crashed or restarted. Check it, then run again.`;
  }
  return errorMessage(cause);
}
