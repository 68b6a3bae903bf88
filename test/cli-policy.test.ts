import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { envelopeOf, runLathe } from "./support/lathe-cli.ts";

let home: string;
let root: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-cli-policy-home-"));
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-cli-policy-root-")));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

const lathe = (args: string[]) => runLathe(args, { home, cwd: root });

async function projectSettings(settings: unknown): Promise<void> {
  await mkdir(path.join(root, ".lathe"), { recursive: true });
  await writeFile(path.join(root, ".lathe/settings.json"), JSON.stringify(settings));
}

describe("project trust from the CLI", () => {
  beforeEach(async () => {
    await projectSettings({
      permissions: [
        { permission: "write", pattern: "out/**", action: "allow" },
        { permission: "read", pattern: "secret/**", action: "deny" },
      ],
    });
    await mkdir(path.join(root, "secret"));
    await writeFile(path.join(root, "secret/key.txt"), "k");
  });

  it("ignores an untrusted project's allow rules, says so once, and still applies its deny rules", async () => {
    const write = await lathe(["call", "write", '{"path":"out/a.txt","content":"x"}']);
    // Each reason after the refusal reads as a sentence of its own.
    expect(envelopeOf(write).error_text).toMatch(
      /needs approval and this host cannot ask anyone \(headless\), so it is refused\. [A-Z]/,
    );
    expect(write.stderr.match(/This folder is not trusted/g)).toHaveLength(1);
    expect(write.stderr).toContain(`lathe trust --root ${root}`);
    await expect(readFile(path.join(root, "out/a.txt"))).rejects.toMatchObject({ code: "ENOENT" });

    const read = await lathe(["call", "read", '{"path":"secret/key.txt"}']);
    expect(envelopeOf(read).error_text).toMatch(
      /denied: reading "secret\/key\.txt" matched the project rule/,
    );
  });

  it("trusts the folder with `lathe trust`, listing what takes effect; then its allow rules work", async () => {
    const trust = await lathe(["trust", "--root", root]);
    expect(trust.code).toBe(0);
    expect(trust.stdout).toContain('rule      allow write "out/**"');
    expect(trust.stdout).toContain("Trust recorded in");

    const write = await lathe(["call", "write", '{"path":"out/a.txt","content":"x"}']);
    expect(envelopeOf(write).type).toBe("output");
    expect(write.stderr).not.toMatch(/not trusted/);
    expect(await readFile(path.join(root, "out/a.txt"), "utf8")).toBe("x");

    const revoke = await lathe(["trust", "--revoke", "--root", root]);
    expect(revoke.stdout).toContain("no longer trusted");
    const again = await lathe(["call", "write", '{"path":"out/b.txt","content":"x"}']);
    expect(envelopeOf(again).type).toBe("error");
  });
});

describe("lathe audit", () => {
  it("records every invocation with its decisions, redacting secrets", async () => {
    await writeFile(path.join(root, "a.txt"), "hello\n");
    await lathe(["call", "read", '{"path":"a.txt"}', "--session", "audited"]);
    await lathe([
      "call",
      "write",
      '{"path":"b.txt","content":"API_TOKEN=hunter2hunter2"}',
      "--session",
      "audited",
    ]);
    await lathe(["call", "nope", "{}", "--session", "other"]);

    const run = await lathe(["audit", "--json", "--session", "audited"]);
    expect(run.code).toBe(0);
    const rows = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => [r.tool, r.outcome])).toEqual([
      ["read", "output"],
      ["write", "error"],
    ]);
    expect(rows[0]).toMatchObject({
      session_id: "audited",
      origin: { layer: "builtin", kind: "builtin" },
      args: { path: "a.txt" },
      decisions: [
        { stage: "capability", outcome: "allow" },
        { stage: "rule", outcome: "ask" },
        { stage: "watchdog", outcome: "allow" },
        { stage: "approval", outcome: "allow", reason: "read is not gated" },
      ],
    });
    expect(rows[0]?.descriptor_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows[1])).not.toContain("hunter2hunter2");
    expect((rows[1]?.decisions as Array<{ stage: string; outcome: string }>).at(-1)).toMatchObject({
      stage: "approval",
      outcome: "deny",
    });

    const all = await lathe(["audit"]);
    expect(all.stdout).toContain("nope");
    expect(all.stdout).toContain("denied at approval");

    const tools = async (...args: string[]) =>
      (await lathe(["audit", "--json", ...args])).stdout
        .trim()
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { tool: string }).tool);
    expect(await tools("--outcome", "denied")).toEqual(["write"]);
    expect(await tools("--outcome", "error")).toEqual(["nope"]);
    expect(await tools("--tool", "read", "--outcome", "output")).toEqual(["read"]);
    const bad = await lathe(["audit", "--outcome", "maybe"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Use output \(it ran\), error \(it failed\) or denied/);
  });
});

describe("broken settings", () => {
  it.each([
    ["not JSON", "{", /is not valid JSON/],
    [
      "a bad action",
      JSON.stringify({ permissions: [{ permission: "bash", action: "sometimes" }] }),
      /permissions\.0\.action/,
    ],
  ])(
    "stops with a clear error naming the file and the field when user settings are %s",
    async (_n, text, message) => {
      await writeFile(path.join(home, "settings.json"), text);
      const run = await lathe(["call", "read", '{"path":"x"}']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(path.join(home, "settings.json"));
      expect(run.stderr).toMatch(message);
    },
  );
});
