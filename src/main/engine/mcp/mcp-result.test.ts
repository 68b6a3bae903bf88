import { describe, expect, it } from "vitest";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import { saveImages, toToolData } from "./mcp-result.ts";
import { mcpTool } from "./mcp-tool.ts";

describe("MCP results", () => {
  it("joins text parts and describes the others in a line each", () => {
    const data = toToolData({
      content: [
        { type: "text", text: "Here it is:" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource", resource: { uri: "demo://doc", mimeType: "text/plain", text: "body" } },
        { type: "resource", resource: { uri: "demo://bin", blob: "AAAAAAAA" } },
        { type: "resource_link", uri: "demo://x", name: "x" },
      ],
      structuredContent: { temperature: 21, conditions: "sunny" },
    });
    expect(data).toEqual({
      content:
        "Here it is:\n[image: image/png, 3 bytes]\n[resource demo://doc, text/plain]\nbody\n[resource demo://bin, 6 bytes of binary data]\n[resource link: x <demo://x>]",
      structured: { temperature: 21, conditions: "sunny" },
    });
  });

  it("saves each image as a file and names it in the text and in images", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const result = {
      content: [
        { type: "text" as const, text: "Two pictures:" },
        { type: "image" as const, data: png.toString("base64"), mimeType: "image/png" },
        { type: "image" as const, data: Buffer.from("jpeg!").toString("base64"), mimeType: "image/jpeg" },
      ],
    };
    const written: Array<{ bytes: Buffer; extension: string }> = [];
    const saved = await saveImages(result, async (bytes, extension) => {
      written.push({ bytes, extension });
      return `/sidecars/img-${written.length}.${extension}`;
    });
    expect(written).toEqual([
      { bytes: png, extension: "png" },
      { bytes: Buffer.from("jpeg!"), extension: "jpg" },
    ]);
    expect(toToolData(result, saved)).toEqual({
      content:
        "Two pictures:\n[image: image/png, 7 bytes, saved to /sidecars/img-1.png]\n[image: image/jpeg, 5 bytes, saved to /sidecars/img-2.jpg]",
      images: [
        { mimeType: "image/png", path: "/sidecars/img-1.png", bytes: 7 },
        { mimeType: "image/jpeg", path: "/sidecars/img-2.jpg", bytes: 5 },
      ],
    });
  });

  it.each([
    [
      "the text is its JSON",
      '{"temperature":21,"conditions":"sunny"}',
      { temperature: 21, conditions: "sunny" },
    ],
    ["the text is its one value", "file body\n", { content: "file body\n" }],
  ])("leaves out a structured result when %s, so it is not sent twice", (_label, text, structured) => {
    expect(toToolData({ content: [{ type: "text", text }], structuredContent: structured })).toEqual({
      content: text,
    });
  });

  it("keeps the structured result when the text is only a summary, or empty", () => {
    const structured = { rows: [1, 2, 3] };
    expect(
      toToolData({ content: [{ type: "text", text: "3 rows" }], structuredContent: structured }),
    ).toEqual({ content: "3 rows", structured });
    expect(toToolData({ content: [], structuredContent: structured })).toEqual({ content: "", structured });
  });

  it("turns isError into a ToolCallError carrying the server's text", async () => {
    const tool = mcpTool({
      id: "t",
      server: "s",
      defer: false,
      tool: { name: "t", inputSchema: { type: "object" } },
      caller: {
        callTool: async () => ({
          isError: true,
          content: [{ type: "text", text: "Access denied - path outside allowed directories" }],
        }),
      },
    });
    const runtime = { signal: new AbortController().signal } as ToolRuntime;
    const failure = await tool.execute({}, runtime).catch((err: unknown) => err);
    expect(ToolCallError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toBe("Access denied - path outside allowed directories");
  });

  it("publishes the server's schema and hints: read-only hint means a read tool, everything gated", () => {
    const caller = { callTool: async () => ({ content: [] }) };
    const ro = mcpTool({
      id: "a",
      server: "s",
      defer: true,
      caller,
      tool: {
        name: "a",
        description: "A",
        inputSchema: { type: "object" },
        annotations: { readOnlyHint: true },
      },
    });
    const rw = mcpTool({
      id: "b",
      server: "s",
      defer: false,
      caller,
      tool: { name: "b", inputSchema: { type: "object" } },
    });
    expect([ro.readOnly, ro.kind, ro.gated, ro.defer, ro.timeoutMs, ro.description]).toEqual([
      true,
      "read",
      true,
      true,
      60_000,
      "A",
    ]);
    expect([rw.readOnly, rw.kind, rw.gated, rw.defer]).toEqual([false, "other", true, false]);
  });
});
