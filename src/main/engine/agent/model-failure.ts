import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  RetryError,
  StreamProviderError,
  TypeValidationError,
} from "ai";
import { ModelError } from "./model-error.ts";
import { ModelStallError } from "./model-stall-error.ts";
import type { ResolvedModel } from "./provider-registry.ts";
import { connectionFailure, isDroppedConnection } from "./providers/connection-failure.ts";
import { errorMessage } from "../errors/error-message.ts";
import { redactText } from "../audit/redact.ts";
import { rateLimitAdvice } from "./retry-after.ts";
import { answerSnippet } from "./providers/answer-snippet.ts";

const TOOLS_UNSUPPORTED = [
  /does not support tools/i,
  /does not support (?:function|tool) call/i,
  /tools? (?:are|is) not supported/i,
  /tool (?:use|calling|calls) (?:is )?not supported/i,
  /"?tool_choice"? requires --enable-auto-tool-choice/i,
  /tools param requires --jinja/i,
];

/** How servers say a request is longer than the model's context (llama.cpp, vLLM, OpenAI, Anthropic, LM Studio). */
const CONTEXT_FULL = [
  /exceeds? the (?:available )?context (?:size|length|window)/i,
  /exceed_context_size_error/i,
  /context_length_exceeded/i,
  /maximum context length/i,
  /context (?:length|window|size) (?:is |was |has been )?exceeded/i,
  /prompt is too long/i,
  /(?:longer|larger) than the (?:model's )?(?:maximum )?context/i,
  /not enough (?:space|room) in the context/i,
  /context length of only \d+ tokens/i,
];

function lastAttempt(error: unknown): unknown {
  return RetryError.isInstance(error) ? error.lastError : error;
}

/**
 * Whether a model call failed because the conversation no longer fits the model's context: a
 * session resumed as it is sends it again and fails the same way.
 */
export function isContextFull(error: unknown): boolean {
  const cause = lastAttempt(error);
  if (ModelError.isModelError(cause)) return cause.code === "model_context_full";
  // A server may refuse the request as an error event of its stream rather than an HTTP error.
  if (StreamProviderError.isInstance(cause)) {
    const text = `${cause.message} ${JSON.stringify(cause.data) ?? ""}`;
    return CONTEXT_FULL.some((re) => re.test(text));
  }
  if (!APICallError.isInstance(cause) || isToolsUnsupported(cause)) return false;
  const text = `${cause.message} ${cause.responseBody ?? ""}`;
  return CONTEXT_FULL.some((re) => re.test(text));
}

/**
 * Whether a model call failed because its connection closed mid-answer (the server crashed or
 * restarted, the network dropped it, the stream ended without a finish): nothing is wrong with
 * the conversation, so the session can go on as it is once the server answers again.
 */
export function isConnectionDropped(error: unknown): boolean {
  const cause = lastAttempt(error);
  const code = connectionFailure(cause);
  if (code !== undefined) return isDroppedConnection(code);
  return InvalidResponseDataError.isInstance(cause) && /without a finish reason/i.test(cause.message);
}

/**
 * Whether a model call failed because the model went silent past its timeout (ModelStallError):
 * like a dropped connection, nothing is wrong with the conversation, which can go on as it is
 * once the model answers again.
 */
export function isModelStalled(error: unknown): boolean {
  return ModelStallError.isModelStall(lastAttempt(error)) || ModelStallError.isModelStall(error);
}

/** Whether a model call failed because the model (or its server) cannot take tools. */
export function isToolsUnsupported(error: unknown): boolean {
  if (!APICallError.isInstance(error)) return false;
  const text = `${error.message} ${error.responseBody ?? ""}`;
  return TOOLS_UNSUPPORTED.some((re) => re.test(text));
}

/**
 * The error's message with its response body when the body says more: the body alone when it
 * holds the message (a plain-text "Internal Server Error: <the reason>" whose message is only the
 * status text), else the message then the body.
 */
function detailOf(error: APICallError): string {
  const raw = error.responseBody?.trim();
  // A proxy's or web server's error page: its words, not its markup.
  const body = raw && /^<(?:!doctype|html|head|body)\b/i.test(raw) ? answerSnippet(raw) : raw;
  if (!body || error.message.includes(body) || jsonSays(body, error.message)) return error.message;
  const shown = body.length > 500 ? `${body.slice(0, 500)}…` : body;
  return body.includes(error.message) ? shown : `${error.message}: ${shown}`;
}

/** Whether a JSON error body holds `message` as one of its strings (the SDK took it from there). */
function jsonSays(body: string, message: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return false;
  }
  const strings: unknown[] = [value];
  for (let i = 0; i < strings.length && i < 200; i++) {
    const item = strings[i];
    if (typeof item === "string" && item.includes(message)) return true;
    if (typeof item === "object" && item !== null) strings.push(...Object.values(item));
  }
  return false;
}

function snippet(text: string | undefined): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/** Whether a value is a piece of a chat completions stream (so the address is the API's). */
function isChatChunk(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  return (value as { object?: unknown }).object === "chat.completion.chunk" || "choices" in value;
}

interface Issue {
  path?: PropertyKey[];
  message?: string;
  errors?: Issue[][];
}

/** The most specific issue of a schema's refusal (within unions, the one that got deepest). */
function deepestIssue(issues: Issue[]): Issue | undefined {
  let best: Issue | undefined;
  for (const issue of issues) {
    const inner = (issue.errors ?? []).map((branch) => deepestIssue(branch)).filter((i) => i !== undefined);
    const candidates = [
      issue,
      ...inner.map((i) => ({ ...i, path: [...(issue.path ?? []), ...(i.path ?? [])] })),
    ];
    for (const c of candidates) if (!best || (c.path?.length ?? 0) > (best.path?.length ?? 0)) best = c;
  }
  return best;
}

/** Where a piece of an answer misses the format and how, from the schema's refusal: "at x.y: …". */
function misfit(validation: unknown): string | undefined {
  const issues = (validation as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues)) return undefined;
  const issue = deepestIssue(issues as Issue[]);
  if (!issue) return undefined;
  const at = (issue.path ?? []).map(String).join(".");
  return `${at ? `at ${at}: ` : ""}${issue.message ?? "unexpected value"}`;
}

/**
 * Text about a failed model call, safe to show and record: the model's own API key masked (a
 * server may echo the Authorization header back in its error), and any other credential-shaped
 * text too.
 */
export function maskModelSecrets(text: string, model: ResolvedModel): string {
  return redactText(model.maskSecrets ? model.maskSecrets(text) : text);
}

/**
 * What a failed model call tells the user, naming the endpoint: the provider's explanation if it
 * has one (not running, connection dropped), else what the server did — an HTTP error with its
 * body, an answer that is not the API's format, an answer cut short. Retries are looked through.
 * Credentials in what the server sent back are masked (maskModelSecrets).
 */
export function describeModelFailure(error: unknown, model: ResolvedModel): string {
  return maskModelSecrets(explainFailure(error, model), model);
}

function explainFailure(error: unknown, model: ResolvedModel): string {
  const retried = RetryError.isInstance(error) ? error : undefined;
  const cause = retried ? retried.lastError : error;
  const tries = retried ? ` (${retried.errors.length} attempts)` : "";
  const explained = model.explainError?.(cause);
  if (explained) return explained;
  const who = model.endpoint ?? `The ${model.spec.provider} provider`;
  if ((APICallError.isInstance(cause) || StreamProviderError.isInstance(cause)) && isContextFull(cause)) {
    return `The conversation no longer fits the context of ${model.spec.model}: ${who} refused it (${cause.message}). Sent again, as resuming this session would, it is refused the same way. To go on, start a new session, take this one back to an earlier prompt, or use a model (or a server setting) with a longer context.`;
  }
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode === undefined ? "failed" : `answered HTTP ${cause.statusCode}`;
    const advice = cause.statusCode === 429 ? ` ${rateLimitAdvice(cause.responseHeaders)}` : "";
    return `${who} ${status}${tries}: ${detailOf(cause)}${advice}`;
  }
  if (TypeValidationError.isInstance(cause) && isChatChunk(cause.value)) {
    const where = misfit(cause.cause);
    return `${who} sent a piece of its answer that does not fit the chat completions format${where ? ` (${where})` : ""}: "${snippet(JSON.stringify(cause.value))}". The server, or the way it turns the model's output into tool calls, is at fault: try another version of it, or another model.`;
  }
  if (JSONParseError.isInstance(cause) || TypeValidationError.isInstance(cause)) {
    const got = JSONParseError.isInstance(cause) ? cause.text : JSON.stringify(cause.value);
    return `${who} sent something that is not a model answer ("${snippet(got)}"): check that its address points at the API itself (for an OpenAI-compatible server, the base URL usually ends in /v1).`;
  }
  if (InvalidResponseDataError.isInstance(cause) && /without a finish reason/i.test(cause.message)) {
    return `${who} ended the answer before it was complete: the server may have crashed or restarted. Check that it runs, then continue the session.`;
  }
  // An error event in the stream (`{"error": {"message": …}}`) after the answer began.
  if (StreamProviderError.isInstance(cause)) {
    return `${who} sent an error in place of the rest of its answer: ${cause.message}`;
  }
  return errorMessage(cause);
}
