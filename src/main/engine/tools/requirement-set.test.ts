import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RequirementSetSchema } from "./requirement-set.ts";

// `requires` (a plugin's, an agent's) is checked with zod/mini (config/zod-mini.ts): the same
// checks and messages as classic zod, at a fraction of the cost of building the schemas.

describe("RequirementSetSchema", () => {
  it.each([
    [
      "an empty path pattern",
      { fs: { read: [""] } },
      "fs.read.0",
      "Too small: expected string to have >=1 characters",
    ],
    [
      "a host that is not a string",
      { net: { hosts: [7] } },
      "net.hosts.0",
      "Invalid input: expected string, received number",
    ],
    [
      "a command without cmd",
      { shell: [{ args: ["x"] }] },
      "shell.0.cmd",
      "Invalid input: expected string, received undefined",
    ],
    ["an unknown key", { fs: { exec: ["x"] } }, "fs", 'Unrecognized key: "exec"'],
    [
      "an argument pattern of no known form",
      { shell: [{ cmd: "git", args: [{ any: true }] }] },
      "shell.0.args.0",
      "Invalid input",
    ],
  ])("refuses %s, saying so in English", (_name, value, where, message) => {
    const parsed = RequirementSetSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join("."), i.message])).toContainEqual([where, message]);
  });

  it("accepts every form of a requirement", () => {
    const value = {
      fs: { read: ["{workspace}/**"], write: ["out/**"] },
      net: { hosts: ["api.example.com:443"] },
      shell: [{ cmd: "git", args: ["log", { wildcard: true as const }, { prefix: "--since=" }] }],
      capabilities: ["x"],
    };
    expect(RequirementSetSchema.parse(value)).toEqual(value);
  });

  it("says what is wrong in English in a process where no classic zod schema was built first", () => {
    const module = fileURLToPath(new URL("./requirement-set.ts", import.meta.url));
    const script = `const { RequirementSetSchema } = await import(${JSON.stringify(module)});
process.stdout.write(RequirementSetSchema.safeParse({ fs: { read: [""] } }).error.issues[0].message);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("Too small: expected string to have >=1 characters");
  });
});
