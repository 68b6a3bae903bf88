import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// A person who writes {"permission": "fs.read", "pattern": "**/.env", "action": "deny"} (the
// README's own example) and lets bash run means: no command reads .env. The parser sees which
// files a command line names — literally, through a glob, a symlink, after `cd`, in `--opt=` —
// and an fs.read deny on any of them refuses the call. Every row is first shown reading the
// secret under plain bash.

const SECRET = "S3CRET-VALUE-91d2";

let outside: string;

const world = useCliWorld("lathe-bash-reads-", {
  per: "file",
  setup: async () => {
    outside = await world.folder("keys");
    await mkdir(path.join(world.root, "sub"));
    await writeFile(path.join(world.root, ".env"), `TOKEN=${SECRET}\n`);
    await writeFile(path.join(world.root, "sub/.env"), `TOKEN=${SECRET}\n`);
    await writeFile(path.join(world.root, "README.md"), "# hello\n");
    await writeFile(path.join(outside, "id_key"), `${SECRET}\n`);
    await symlink(".env", path.join(world.root, "settings.txt"));
    // A project's own `.env` that is a symlink: the secret is stored under a name no rule covers.
    await mkdir(path.join(world.root, "linked"));
    await mkdir(path.join(world.root, "store"));
    await writeFile(path.join(world.root, "store/values.txt"), `TOKEN=${SECRET}\n`);
    await symlink("../store/values.txt", path.join(world.root, "linked/.env"));
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({
        permissions: [
          { permission: "bash", pattern: "*", action: "allow" },
          { permission: "fs.read", pattern: "**/.env", action: "deny" },
          { permission: "fs.read", pattern: `${outside}/**`, action: "deny" },
        ],
      }),
    );
  },
});

const bash = (command: string) => world.lathe(["call", "bash", JSON.stringify({ command })]);

const hostile: Array<[string, string, RegExp]> = [
  ["a literal name", "cat .env", /reading "\.env"/],
  ["a ./ path", "head -n 1 ./.env", /reading "\.env"/],
  ["an absolute path", "ROOT/.env", /reading "\.env"/],
  ["a glob", "cat .e*", /reading "\.env"/],
  ["a ? glob", "cat .en?", /reading "\.env"/],
  ["a glob over folders", "cat */.env", /reading "sub\/\.env"/],
  ["a symlink to it", "cat settings.txt", /reading "\.env"/],
  ["a glob meeting that symlink", "cat *.txt", /reading "\.env"/],
  ["after cd", "cd sub && grep TOKEN .env", /reading "(sub\/)?\.env"/],
  ["an --option=value", "grep -h --file=.env -e x .env", /reading "\.env"/],
  ["a copy out of it", "cp .env copied.txt && cat copied.txt", /reading "\.env"/],
  ["a key outside the workspace", "cat KEYS/id_key", /reading ".*keys\/id_key"/],
  ["a pipeline's second command", "echo start | tail -n 1 .env", /reading "\.env"/],
  [
    "a symlink named .env that leads to a file no rule names",
    "cat linked/.env",
    /reading "linked\/\.env" \(which the command names, through a symlink\)/,
  ],
];

const spell = (command: string) =>
  command.replace("ROOT/.env", `cat ${world.root}/.env`).replace("KEYS", outside);

describe("bash and fs.read deny rules", () => {
  it.each(hostile)("%s: plain bash reads it, Lathe refuses the call", async (_name, command, what) => {
    const line = spell(command);
    // Positive control: under plain bash the command reads the secret.
    const control = execFileSync("bash", ["-c", line], { cwd: world.root, encoding: "utf8" });
    expect(control).toContain(SECRET);
    await rm(path.join(world.root, "copied.txt"), { force: true });

    const run = await bash(line);
    const envelope = envelopeOf(run);
    expect(envelope.type).toBe("error");
    expect(envelope.error_text).toMatch(what);
    expect(envelope.error_text).toMatch(/matched the user rule \{permission: "fs\.read"/);
    expect(run.stdout).not.toContain(SECRET);
    expect(existsSync(path.join(world.root, "copied.txt"))).toBe(false);
  });

  it.each([
    ["cat README.md", "# hello"],
    ["cat *.md", "# hello"],
    ["ls -a sub", ".env"],
    ["grep -c hello README.md", "1"],
  ])(
    "%s still runs: naming a folder that holds .env, or other files, is not reading it",
    async (command, out) => {
      const envelope = envelopeOf(await bash(command));
      expect(envelope.type).toBe("output");
      expect(String(envelope.data?.output)).toContain(out);
    },
  );
});
