import { ModelError } from "../model-error.ts";
import { answerSnippet } from "./answer-snippet.ts";

/** Who answers and where its address is set, for the messages. */
export interface StreamEndpoint {
  /** "The OpenAI-compatible server at http://127.0.0.1:8000". */
  who: string;
  /** The setting that holds its address: `providers["vllm"].baseURL`. */
  setting: string;
  /** The base URL as configured. */
  baseURL: string;
  /**
   * What to do about a web page or other non-event answer, when not the default (point the
   * setting at the server's OpenAI-compatible API): a cloud service's own address is right, and
   * a page in its place comes from something between (a company's web filter, a proxy).
   */
  fix?: string;
}

/** Whether a request asks for a streamed answer (`"stream": true` in its JSON body). */
function asksForStream(init: RequestInit | undefined): boolean {
  if (typeof init?.body !== "string") return false;
  try {
    return (JSON.parse(init.body) as { stream?: unknown }).stream === true;
  } catch {
    return false;
  }
}

/** The message of an error a JSON body carries: `{"error": {"message"}}`, `{"error": "…"}`, `{"detail": "…"}`. */
function errorIn(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { error, detail, message } = body as { error?: unknown; detail?: unknown; message?: unknown };
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null) {
    const inner = (error as { message?: unknown }).message;
    return typeof inner === "string" ? inner : JSON.stringify(error);
  }
  if (typeof detail === "string") return detail;
  if (!("choices" in body) && typeof message === "string") return message;
  return undefined;
}

/** Why a successful answer to a streamed request is not the stream of events it should be. */
function notAStream(type: string, text: string, endpoint: StreamEndpoint): ModelError {
  if (/json/i.test(type)) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const error = errorIn(body);
    if (error !== undefined) {
      return new ModelError(
        "model_unavailable",
        `${endpoint.who} answered with an error instead of a model's answer: ${answerSnippet(error)}`,
      );
    }
    if (typeof body === "object" && body !== null && "choices" in body) {
      return new ModelError(
        "model_config",
        `${endpoint.who} answered with one whole JSON answer instead of streaming it: Lathe asks for a stream of events ("stream": true), which the server (or a proxy before it) ignored. Point ${endpoint.setting} (now ${endpoint.baseURL}) at a server that streams chat completions.`,
      );
    }
  }
  const what = /html/i.test(type) ? "a web page" : `${type || "something"}`;
  const fix =
    endpoint.fix ??
    `${endpoint.setting} (now ${endpoint.baseURL}) must point at the server's OpenAI-compatible API, whose address usually ends in /v1.`;
  return new ModelError(
    "model_config",
    `${endpoint.who} answered with ${what}, not a model's answer ("${answerSnippet(text)}"): ${fix}`,
  );
}

/**
 * A fetch that checks what a streamed request gets back: a server must answer it with
 * server-sent events. A web page (a base URL that points at a web app) or a JSON body (an error
 * a proxy sends with status 200, a server that ignores `"stream": true`) would otherwise be read
 * as a stream with no events in it, and reported as a server that crashed mid-answer. Such an
 * answer throws a ModelError saying what came back and what to correct. Answers of another
 * content type (or none) pass through as they are.
 */
export function requireEventStream(fetchImpl: typeof fetch, endpoint: StreamEndpoint): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.ok || !asksForStream(init)) return response;
    const type = response.headers.get("content-type") ?? "";
    if (!/text\/html|application\/(?:[\w.+-]+\+)?json/i.test(type)) return response;
    const text = await response.text();
    throw notAStream(type.split(";")[0]!.trim(), text, endpoint);
  };
}
