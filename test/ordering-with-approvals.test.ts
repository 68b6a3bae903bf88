import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineBuiltin } from "../src/main/engine/builtin/define-builtin.ts";
import { Engine } from "../src/main/engine/index.ts";

// Mutating calls run in the order they were issued even when the first one's approval is slow:
// the scheduler slot is taken when the call is issued, and the policy decides inside it.

let base: string;
let engine: Engine;
const ran: string[] = [];

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-order-"));
  engine = await Engine.create({ root: base, latheHome: path.join(base, ".home"), extensions: false });
  ran.length = 0;
  engine.registry.register(
    defineBuiltin({
      id: "mark",
      description: "Records that it ran.",
      schema: z.strictObject({ name: z.string() }),
      requires: {},
      readOnly: false,
      kind: "other",
      execute: async ({ name }) => {
        ran.push(name);
        return { name };
      },
    }),
    { layer: "project", kind: "plugin", name: "test" },
  );
});

afterEach(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

describe("write ordering with approvals", () => {
  it("runs the second write after the first, however long the first one's approval takes", async () => {
    const session = await engine.openSession({
      mode: "ask",
      approver: async (request) => {
        if ((request.args as { name: string }).name === "first") await new Promise((r) => setTimeout(r, 150));
        return "once";
      },
    });
    const [a, b] = await Promise.all([
      session.call("mark", { name: "first" }),
      session.call("mark", { name: "second" }),
    ]);
    expect([a.type, b.type]).toEqual(["output", "output"]);
    expect(ran).toEqual(["first", "second"]);
  });

  it("still runs a later write when an earlier one is rejected", async () => {
    const session = await engine.openSession({
      mode: "ask",
      approver: async (request) => ((request.args as { name: string }).name === "first" ? "reject" : "once"),
    });
    const [a, b] = await Promise.all([
      session.call("mark", { name: "first" }),
      session.call("mark", { name: "second" }),
    ]);
    expect(a).toMatchObject({ type: "error", error_text: expect.stringMatching(/rejected/) });
    expect(b.type).toBe("output");
    expect(ran).toEqual(["second"]);
  });
});
