import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultProviderRegistry } from "../src/main/engine/agent/default-providers.ts";
import { envelopeOutput } from "../src/main/engine/agent/model-messages.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";
import { startOpenAICompatibleServer, type FixtureServer } from "./fixtures/openai-compatible-server.ts";
import { eventsOf, openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";

// An MCP tool that answers with an image (server-everything's get-tiny-image, a real server over
// stdio): the image is saved in the session's sidecar folder, a model that takes images gets it
// as an image part of the tool result, and any other model reads a placeholder naming the file.

const EVERYTHING = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

let base: string;
let harness: AgentHarness | undefined;
let fixture: FixtureServer | undefined;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-images-"));
});
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await harness?.cleanup();
  harness = undefined;
  await rm(base, { recursive: true, force: true });
});

interface ToolMessage {
  role: string;
  content?: unknown;
}

/** A run whose model calls get-tiny-image once, then answers; `images` is the endpoint's setting. */
async function runWithImage(images: boolean | string[] | undefined) {
  const home = path.join(base, "home");
  await mkdir(home, { recursive: true });
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
    }),
  );
  harness = await openAgentHarness({ home });
  await harness.engine.settleExtensions();
  expect(harness.engine.registry.get("get-tiny-image")).toBeDefined();
  fixture = await startOpenAICompatibleServer({
    models: ["vision-model"],
    replies: [{ toolCalls: [{ name: "get-tiny-image", arguments: {} }] }, { text: "A tiny image." }],
  });
  const model = await defaultProviderRegistry().resolve("openai-compatible:vision-model", {
    providers: {
      "openai-compatible": { baseURL: fixture.baseURL, ...(images !== undefined ? { images } : {}) },
    },
  });
  const events: RunEvent[] = [];
  const result = await runAgent({
    engine: harness.engine,
    agent: harness.agent,
    model,
    prompt: "Show me the tiny image.",
    mode: "yolo",
    contextTokens: 1_000_000,
    onEvent: (e) => events.push(e),
  });
  expect(result.status).toBe("completed");
  const envelope = eventsOf(events, "tool-result")[0]?.envelope as Envelope;
  if (envelope.type !== "output") throw new Error(`get-tiny-image failed: ${envelope.error_text}`);
  const data = envelope.data as {
    content: string;
    images: Array<{ path: string; mimeType: string; bytes: number }>;
  };
  const toolMessage = fixture.requests[1]?.messages.find((m) => m.role === "tool") as ToolMessage;
  const resume = async (): Promise<ToolMessage> => {
    const again = await runAgent({
      engine: harness!.engine,
      agent: harness!.agent,
      model,
      prompt: "And again?",
      sessionId: result.sessionId,
      contextTokens: 1_000_000,
    });
    expect(again.status).toBe("completed");
    return fixture!.requests.at(-1)?.messages.find((m) => m.role === "tool") as ToolMessage;
  };
  return { result, data, toolMessage, resume };
}

describe("images from MCP tools", () => {
  it("are saved beside the sidecars and named in a placeholder for a model without images", async () => {
    const { data, toolMessage } = await runWithImage(undefined);
    const [image] = data.images;
    expect(data.images).toHaveLength(1);
    expect(image?.mimeType).toBe("image/png");
    expect(path.dirname(image?.path ?? "")).toMatch(/sessions\/s-[^/]+\/sidecars$/);
    // The file holds the image itself: a PNG the person can open from the tool card.
    const bytes = await readFile(image?.path ?? "");
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.length).toBe(image?.bytes);
    expect(data.content).toContain(`[image: image/png, ${bytes.length} bytes, saved to ${image?.path}]`);
    // The model reads the envelope as text: the placeholder, and no image data.
    expect(typeof toolMessage.content).toBe("string");
    expect(String(toolMessage.content)).toContain("saved to");
    expect(String(toolMessage.content)).not.toContain(bytes.toString("base64").slice(0, 40));
  });

  it.each<[string, boolean | string[]]>([
    ["images: true", true],
    ["a glob of its model names", ["vision-*"]],
  ])("go to a model that takes images (%s) as an image part of the tool result", async (_label, images) => {
    const { data, toolMessage, resume } = await runWithImage(images);
    const bytes = await readFile(data.images[0]?.path ?? "");
    const imagePart = {
      type: "image_url",
      image_url: { url: `data:image/png;base64,${bytes.toString("base64")}` },
    };
    expect(Array.isArray(toolMessage.content)).toBe(true);
    const parts = toolMessage.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts[0]).toMatchObject({ type: "text", text: expect.stringContaining('"type":"output"') });
    expect(parts[1]).toEqual(imagePart);
    // A resumed session shows the model the image again, from the saved file.
    expect((await resume()).content).toEqual([parts[0], imagePart]);
  });

  it("stay placeholders for a model the glob does not name", async () => {
    const { toolMessage } = await runWithImage(["llava*"]);
    expect(typeof toolMessage.content).toBe("string");
  });
});

describe("envelopeOutput", () => {
  it("never reads a file outside the session's sidecar folder, whatever a tool's output names", async () => {
    const sidecars = path.join(base, "sidecars");
    await mkdir(sidecars, { recursive: true });
    const outside = path.join(base, "secret.png");
    await writeFile(outside, Buffer.from("not for the model"));
    const inside = path.join(sidecars, "ok.png");
    await writeFile(inside, Buffer.from("fine"));
    const envelope = (paths: string[], mimeType = "image/png"): Envelope => ({
      type: "output",
      data: { images: paths.map((p) => ({ path: p, mimeType, bytes: 4 })) },
      metadata: { duration_ms: 1 },
    });
    const options = { images: { sidecarDir: sidecars } };
    expect(envelopeOutput(envelope([outside]), options).type).toBe("json");
    expect(envelopeOutput(envelope([path.join(sidecars, "..", "secret.png")]), options).type).toBe("json");
    expect(envelopeOutput(envelope([inside], "text/plain"), options).type).toBe("json");
    expect(envelopeOutput(envelope([inside]), {}).type).toBe("json");
    const shown = envelopeOutput(envelope([outside, inside]), options);
    expect(shown.type).toBe("content");
    expect(shown.type === "content" && shown.value.slice(1)).toEqual([
      {
        type: "file",
        mediaType: "image/png",
        data: { type: "data", data: Buffer.from("fine").toString("base64") },
      },
    ]);
  });
});
