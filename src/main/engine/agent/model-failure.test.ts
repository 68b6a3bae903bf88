import { APICallError, RetryError, StreamProviderError } from "ai";
import { describe, expect, it } from "vitest";
import { ModelError } from "./model-error.ts";
import { describeModelFailure, isContextFull } from "./model-failure.ts";
import type { ResolvedModel } from "./provider-registry.ts";

const MODEL = {
  spec: { provider: "openai-compatible", model: "qwen" },
  endpoint: "The OpenAI-compatible server at http://127.0.0.1:9000",
} as unknown as ResolvedModel;

function httpError(statusCode: number, message: string, responseBody: string): APICallError {
  return new APICallError({
    message,
    url: "http://127.0.0.1:9000/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    responseBody,
    isRetryable: false,
  });
}

// How servers refuse a conversation longer than the model's context, as their clients see it.
const CONTEXT_FULL: Array<[string, APICallError]> = [
  [
    "llama.cpp server",
    httpError(
      400,
      "the request exceeds the available context size, try increasing it",
      '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}',
    ),
  ],
  [
    "OpenAI",
    httpError(
      400,
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
      '{"error":{"code":"context_length_exceeded"}}',
    ),
  ],
  [
    "vLLM",
    httpError(
      400,
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
      "",
    ),
  ],
  ["Anthropic", httpError(400, "prompt is too long: 210000 tokens > 200000 maximum", "")],
  [
    "LM Studio",
    httpError(
      400,
      "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.",
      "",
    ),
  ],
];

// Failures that are not about the context: resuming may well work once their cause is dealt with.
const OTHER_FAILURES: Array<[string, unknown]> = [
  ["a wrong key", httpError(401, "Invalid API key", "")],
  ["a rate limit", httpError(429, "Rate limit reached", "")],
  ["a server error", httpError(500, "Internal Server Error", "<html>context</html>")],
  [
    "a model without tools",
    httpError(400, "Bad Request", '{"error":{"message":"qwen does not support tools"}}'),
  ],
  ["a stall", new ModelError("model_stalled", "silent")],
  [
    "an error event mid-answer",
    new StreamProviderError({
      message: "upstream overloaded",
      data: { message: "upstream overloaded", code: 500 },
    }),
  ],
  ["a plain error", new Error("maximum context length")],
];

describe("a conversation longer than the model's context", () => {
  it.each(CONTEXT_FULL)("is recognised in %s's refusal, and said with the way on", (_server, error) => {
    expect(isContextFull(error)).toBe(true);
    const text = describeModelFailure(error, MODEL);
    expect(text).toContain("The conversation no longer fits the context of qwen");
    expect(text).toContain(error.message);
    expect(text).toContain("start a new session, take this one back to an earlier prompt");
  });

  it("is recognised through the SDK's retries, and from the embedded model's own error", () => {
    const [, error] = CONTEXT_FULL[0] as [string, APICallError];
    const retried = new RetryError({
      message: "failed after 2 attempts",
      reason: "maxRetriesExceeded",
      errors: [error, error],
    });
    expect(isContextFull(retried)).toBe(true);
    expect(isContextFull(new ModelError("model_context_full", "no longer fits"))).toBe(true);
  });

  it.each(OTHER_FAILURES)("is not claimed for %s", (_what, error) => {
    expect(isContextFull(error)).toBe(false);
  });
});

describe("an error a server sends as an event of its stream", () => {
  it("names the server and says it came in place of the rest of the answer", () => {
    const error = new StreamProviderError({
      message: "upstream overloaded",
      data: { message: "upstream overloaded" },
    });
    expect(describeModelFailure(error, MODEL)).toBe(
      "The OpenAI-compatible server at http://127.0.0.1:9000 sent an error in place of the rest of its answer: upstream overloaded",
    );
  });

  it("is a full context when it says so (llama.cpp's refusal as a stream event), with the way on", () => {
    const error = new StreamProviderError({
      message: "the request exceeds the available context size, try increasing it",
      data: { code: 400, type: "exceed_context_size_error", n_prompt_tokens: 9000, n_ctx: 8192 },
    });
    expect(isContextFull(error)).toBe(true);
    expect(describeModelFailure(error, MODEL)).toContain(
      "The conversation no longer fits the context of qwen",
    );
  });
});

describe("an error page a proxy answers with", () => {
  it("is told by its words, not its markup", () => {
    const page =
      "<!DOCTYPE html>\n<html><head><title>Oops</title><style>h1 { color: red }</style></head>\n<body><h1>Something went wrong</h1><p>The upstream model crashed.</p></body></html>\n";
    const text = describeModelFailure(httpError(500, "Internal Server Error", page), MODEL);
    expect(text).toBe(
      "The OpenAI-compatible server at http://127.0.0.1:9000 answered HTTP 500: Internal Server Error: Oops Something went wrong The upstream model crashed.",
    );
  });
});

describe("an error body that repeats the status text and says more", () => {
  // A plain-text 500 (a proxy, or a server that writes its reason as text): the SDK takes the
  // status text as the message, and the body holds the reason after it.
  it.each([
    [
      "the reason after the status text",
      httpError(
        500,
        "Internal Server Error",
        "Internal Server Error: llama runner process has terminated: signal: killed",
      ),
      "answered HTTP 500: Internal Server Error: llama runner process has terminated: signal: killed",
    ],
    [
      "the reason before it",
      httpError(503, "Service Unavailable", "model is loading, Service Unavailable"),
      "answered HTTP 503: model is loading, Service Unavailable",
    ],
  ])("keeps %s", (_what, error, says) => {
    expect(describeModelFailure(error, MODEL)).toBe(
      `The OpenAI-compatible server at http://127.0.0.1:9000 ${says}`,
    );
  });

  it("still says a body that only repeats the message once", () => {
    const text = describeModelFailure(
      httpError(500, "Internal Server Error", "Internal Server Error"),
      MODEL,
    );
    expect(text).toBe(
      "The OpenAI-compatible server at http://127.0.0.1:9000 answered HTTP 500: Internal Server Error",
    );
  });
});

describe("a JSON error body whose message the SDK took", () => {
  it.each([
    [
      '{"error":{"message":"The model `m` does not exist.","code":"model_not_found"}}',
      "The model `m` does not exist.",
    ],
    // Quotes in the message are escaped in the JSON text, so the body's text does not hold it.
    [
      '{"error":{"message":"model \\"llama3.2\\" not found, try pulling it first","type":"api_error"}}',
      'model "llama3.2" not found, try pulling it first',
    ],
  ])("says the message once, without the JSON around it: %s", (body, message) => {
    expect(describeModelFailure(httpError(404, message, body), MODEL)).toBe(
      `The OpenAI-compatible server at http://127.0.0.1:9000 answered HTTP 404: ${message}`,
    );
  });

  it("keeps a JSON body that says something else", () => {
    const body = '{"detail":"upstream llama runner crashed"}';
    expect(describeModelFailure(httpError(502, "Bad Gateway", body), MODEL)).toBe(
      `The OpenAI-compatible server at http://127.0.0.1:9000 answered HTTP 502: Bad Gateway: ${body}`,
    );
  });
});
