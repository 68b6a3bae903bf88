import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPluginWorld, plugin, writePlugin, type PluginWorld } from "./support/plugin-test-kit.ts";
import { errorOf, outputOf } from "./support/envelope-of.ts";
import type { Session } from "../src/main/engine/session/session.ts";
import { MAX_RESULT_DEPTH } from "../src/main/engine/tools/json-shape.ts";
import { truncateResult } from "../src/main/engine/plugins/plugin-output.ts";

/**
 * Results nested far deeper than any real one, from a plugin that has already sent data out.
 * The positive control serializes the same shape the way the pipeline's truncation did and
 * overflows the stack. Through Lathe every call ends in one error envelope saying what was
 * wrong and exactly one audit row, the data the plugin sent out was sent once, and the plugin
 * keeps working.
 */

const OPEN_ARGS = { type: "object", additionalProperties: true };

let world: PluginWorld;
let session: Session;
let server: Server;
let port = 0;
let received = 0;

/** Build the nested value in the isolate, after posting to the loopback server. */
const NESTER = `
  await runtime.net.fetch("http://127.0.0.1:" + args.port + "/exfil", { method: "POST", body: "sent" });
  let value = args.leaf ?? "bottom";
  for (let i = 0; i < args.depth; i++) value = args.kind === "array" ? [value] : { down: value, i };
  if (args.wrap) return { ok: true, big: "x".repeat(300000), nested: value };
  return value;
`;

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    received++;
    req.resume();
    req.on("end", () => res.writeHead(200).end("ok"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  world = await openPluginWorld({
    arrange: async (w) => {
      await writePlugin(
        w.globalDir,
        "nester",
        plugin("nester", NESTER, {
          input_schema: OPEN_ARGS,
          requires: { net: { hosts: ["127.0.0.1"] } },
          timeoutMs: 20_000,
        }),
      );
    },
  });
  session = await world.session();
});

afterAll(async () => {
  await world?.cleanup();
  await new Promise((r) => server?.close(r));
});

function auditRows(toolId: string) {
  return world.engine
    .audit()
    .query({ sessionId: session.id })
    .filter((r) => r.toolId === toolId);
}

describe("positive control: the old truncation overflows on the same shape", () => {
  it("a result nested 5,000 deep with a large sibling throws RangeError in truncateResult", () => {
    expect(() => truncateResult({ big: "x".repeat(300_000), nested: nested(5_000) })).toThrow(RangeError);
  });
});

describe("Lathe: one envelope and one audit row, whatever the depth", () => {
  it.each([
    ["an array nested 5,000 deep", { kind: "array", depth: 5_000 }],
    ["an object nested 5,000 deep", { kind: "object", depth: 5_000 }],
    ["5,000 deep beside a string large enough to be truncated", { kind: "array", depth: 5_000, wrap: true }],
    ["just past the limit", { kind: "array", depth: MAX_RESULT_DEPTH + 1 }],
    ["100,000 deep", { kind: "array", depth: 100_000 }],
  ])("%s", async (_name, shape) => {
    const rowsBefore = auditRows("nester").length;
    const sentBefore = received;
    const text = errorOf(await session.call("nester", { ...shape, port }));
    // Past what the isolate itself can serialize, the isolate says so; below, the pipeline's check does.
    expect(text).toMatch(
      shape.depth >= 100_000
        ? /nester returned a value that is not JSON data \(Maximum call stack size exceeded\)/
        : /nester returned a result that is nested deeper than 100 levels, so it cannot be passed on/,
    );
    expect(received - sentBefore).toBe(1);
    const rows = auditRows("nester");
    expect(rows.length - rowsBefore).toBe(1);
    expect(rows.at(-1)).toMatchObject({ outcome: "error" });
    // The plugin is fine: a shallow result goes through.
    expect(outputOf(await session.call("nester", { kind: "array", depth: 3, port }))).toEqual([[["bottom"]]]);
  });

  it("a result at the limit goes through whole", async () => {
    const data = outputOf<unknown>(
      await session.call("nester", { kind: "array", depth: MAX_RESULT_DEPTH - 1, port }),
    );
    let depth = 0;
    for (let v: unknown = data; Array.isArray(v); v = v[0]) depth++;
    expect(depth).toBe(MAX_RESULT_DEPTH - 1);
  });
});
