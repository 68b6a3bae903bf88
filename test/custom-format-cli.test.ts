import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// A plugin (or MCP server) may name a format of its own: `format: x-ticket-id` is legal JSON
// Schema, and a validator that does not know it simply does not check it. `lathe call` of such a
// tool printed the validator's `unknown format "x-ticket-id" ignored in schema at path …` on the
// terminal, under the envelope.

const world = useCliWorld("lathe-format-");

const ECHO = "export async function execute(args) {\n  return { id: args.id };\n}\n";

async function writePlugin(name: string, id: Record<string, unknown>): Promise<string> {
  const dir = path.join(world.home, "tools", name);
  await mkdir(dir, { recursive: true });
  const schema = { type: "object", properties: { id } };
  await writeFile(
    path.join(dir, "tool.yaml"),
    stringify({
      name,
      version: "1.0.0",
      description: `The ${name} tool.`,
      input_schema: schema,
      output_schema: schema,
      readOnly: true,
      gated: false,
    }),
  );
  await writeFile(path.join(dir, "index.js"), ECHO);
  return dir;
}

describe("a tool whose schema names a format of its own", () => {
  it("runs, with its value unchecked, and nothing else is printed", async () => {
    await writePlugin("ticket", { type: "string", format: "x-ticket-id" });
    const run = await world.lathe(["call", "ticket", JSON.stringify({ id: "not checked" })]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(envelopeOf(run)).toMatchObject({ type: "output", data: { id: "not checked" } });
  });

  it("also when the schema has a pattern", async () => {
    await writePlugin("ticket2", { type: "string", format: "x-ticket-id", pattern: "^T-" });
    const batch = Array.from({ length: 5 }, (_, i) => `ticket2 ${JSON.stringify({ id: `T-${i}` })}`).join(
      "\n",
    );
    const run = await world.lathe(["batch"], { input: `${batch}\n` });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string }),
    ).toEqual(Array.from({ length: 5 }, () => expect.objectContaining({ type: "output" })));
  });
});

describe("lathe plugin check", () => {
  it("notes each format Lathe does not check, and a near miss of one it does", async () => {
    const dir = await writePlugin("ticket3", { type: "string", format: "date_time" });
    const run = await world.lathe(["plugin", "check", dir]);
    expect(run.code).toBe(0);
    const notes = run.stdout
      .split("\n")
      .filter((line) => line.startsWith("note: ") && line.includes(".format is"));
    expect(notes).toEqual([
      'note: input_schema.properties.id.format is "date_time", a format Lathe does not know: values there are not checked against it (did you mean "date-time"?).',
      'note: output_schema.properties.id.format is "date_time", a format Lathe does not know: values there are not checked against it (did you mean "date-time"?).',
    ]);
  });
});
