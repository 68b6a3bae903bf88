import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import { envelopeOf, PACKAGE_ROOT, runLathe } from "./support/lathe-cli.ts";

// A person's credentials live under their home folder (~/.ssh, ~/.aws, ~/.netrc, …). A command
// run for a model — one a README or a web page talked it into — must not copy them into the
// workspace, where the next fetch or commit carries them away. The sandbox hides them from every
// confined process (sandbox.denyRead, on by default); a command that names one is refused first,
// with the reason, so the model does not go looking for another way.

const machine = await machineSandbox();
const NO_SANDBOX = !machine.active;
if (NO_SANDBOX)
  console.log(`hostile-secret-reads is skipped: this machine has no OS sandbox (${machine.reason})`);

const SECRET = "SECRET-KEY-5e8b1f0c2d3a";
const SCRIPTED_MCP = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

let base: string;
let home: string;
let fakeHome: string;
let ws: string;

const SECRETS = [
  { name: "an ssh private key", file: ".ssh/id_ed25519" },
  { name: "AWS credentials", file: ".aws/credentials" },
  { name: "a netrc (a file, not a folder)", file: ".netrc" },
  { name: "docker's registry logins", file: ".docker/config.json" },
];

beforeAll(async () => {
  if (NO_SANDBOX) return;
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-secret-reads-")));
  home = path.join(base, "lathe-home");
  fakeHome = path.join(base, "person");
  ws = path.join(base, "ws");
  for (const dir of [home, fakeHome, ws]) await mkdir(dir);
  for (const { file } of SECRETS) {
    await mkdir(path.dirname(path.join(fakeHome, file)), { recursive: true });
    await writeFile(path.join(fakeHome, file), `${SECRET}\n`);
  }
});

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

const lathe = (args: string[]) =>
  runLathe([...args, "--mode", "yolo"], { home, cwd: ws, env: { HOME: fakeHome } });
const bash = (command: string, more: string[] = []) =>
  lathe(["call", "bash", JSON.stringify({ command }), ...more]);
const leaked = async (): Promise<string> => {
  const file = path.join(ws, "leak.txt");
  const text = existsSync(file) ? await readFile(file, "utf8") : "";
  await rm(file, { force: true });
  return text;
};

/** Every regular file under `dir` whose content holds the secret (symlinks are not followed). */
async function filesHoldingSecret(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesHoldingSecret(file)));
    else if (entry.isFile() && (await readFile(file, "latin1")).includes(SECRET)) found.push(file);
  }
  return found;
}

describe.skipIf(NO_SANDBOX)("a command reading the person's credentials", () => {
  it.each(SECRETS)("$name: plain bash copies it; Lathe's sandbox hides it", async ({ file }) => {
    // The path only exists at run time ($F), so the parser cannot see it: the sandbox must hold.
    const command = `F="$HOME/${file}"; cat -- "$F" > leak.txt; cat -- "$F"; true`;

    // Positive control: the same command in plain bash copies the secret into the folder.
    const control = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-secret-control-")));
    try {
      execFileSync("bash", ["-c", command], { cwd: control, env: { ...process.env, HOME: fakeHome } });
      expect(await readFile(path.join(control, "leak.txt"), "utf8")).toContain(SECRET);
    } finally {
      await rm(control, { recursive: true, force: true });
    }

    const run = await bash(command);
    // It ran: what held is the sandbox, not a refusal.
    expect(envelopeOf(run).type).toBe("output");
    expect(run.stdout).not.toContain(SECRET);
    expect(await leaked()).not.toContain(SECRET);
    // Hidden, not changed: the file is still the person's.
    expect(await readFile(path.join(fakeHome, file), "utf8")).toBe(`${SECRET}\n`);
  });

  // Ways around a hidden folder that the parser lets through (the paths only exist at run time):
  // another view of the file system, or the whole home folder copied, archived or walked.
  it.each([
    ["/proc/self/root", 'cat /proc/self/root"$HOME"/.ssh/id_ed25519 > leak.txt; true'],
    ["a copy of the whole home folder", 'H=$HOME; cp -r -- "$H" copy; true'],
    ["an archive of the home folder", 'H=$HOME; tar cf leak.tar -C "$H" .; true'],
    [
      "find -exec over a symlink to the home folder",
      'H=$HOME; ln -s -- "$H" h; find h/ -type f -exec cat {} + > leak.txt; true',
    ],
  ])("%s: plain bash copies the secrets, Lathe's sandbox hides them", async (_how, command) => {
    // Positive control: the same command in plain bash puts a secret into the folder.
    const control = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-secret-control-")));
    try {
      execFileSync("bash", ["-c", command], { cwd: control, env: { ...process.env, HOME: fakeHome } });
      expect(await filesHoldingSecret(control)).not.toEqual([]);
    } finally {
      await rm(control, { recursive: true, force: true });
    }

    const run = await bash(command);
    try {
      // It ran: what held is the sandbox, not a refusal.
      expect(envelopeOf(run).type).toBe("output");
      expect(run.stdout).not.toContain(SECRET);
      expect(await filesHoldingSecret(ws)).toEqual([]);
    } finally {
      for (const name of await readdir(ws)) await rm(path.join(ws, name), { recursive: true, force: true });
    }
    expect(await readFile(path.join(fakeHome, ".ssh/id_ed25519"), "utf8")).toBe(`${SECRET}\n`);
  });

  // Keys kept outside the default places, which the environment Lathe runs in points at.
  it.each([
    { variable: "GOOGLE_APPLICATION_CREDENTIALS", value: "gcp/key.json", file: "gcp/key.json" },
    { variable: "KUBECONFIG", value: "k/other.yaml:k/config.yaml", file: "k/config.yaml" },
    { variable: "XDG_CONFIG_HOME", value: "xdg", file: "xdg/gh/hosts.yml" },
  ])(
    "a key $variable points at: plain bash copies it, Lathe's sandbox hides it",
    async ({ variable, value, file }) => {
      const at = (p: string) => path.join(base, "elsewhere", p);
      await mkdir(path.dirname(at(file)), { recursive: true });
      await writeFile(at(file), `${SECRET}\n`);
      const env = { HOME: fakeHome, [variable]: value.split(":").map(at).join(":") };
      const command = `F='${at(file)}'; cat -- "$F" > leak.txt; cat -- "$F"; true`;

      const control = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-secret-control-")));
      try {
        execFileSync("bash", ["-c", command], { cwd: control, env: { ...process.env, ...env } });
        expect(await readFile(path.join(control, "leak.txt"), "utf8")).toContain(SECRET);
      } finally {
        await rm(control, { recursive: true, force: true });
      }

      const run = await runLathe(["call", "bash", JSON.stringify({ command }), "--mode", "yolo"], {
        home,
        cwd: ws,
        env,
      });
      expect(envelopeOf(run).type).toBe("output");
      expect(run.stdout).not.toContain(SECRET);
      expect(await leaked()).not.toContain(SECRET);
      expect(await readFile(at(file), "utf8")).toBe(`${SECRET}\n`);
    },
  );

  it.each([
    ["an argument", "cp ~/.ssh/id_ed25519 leak.txt"],
    ["an absolute path", "cat /PERSON/.netrc > leak.txt"],
    ["a glob", "cat ~/.aws/cred* > leak.txt"],
  ])(
    "a command naming one in %s is refused with the reason, and nothing is copied",
    async (_how, spelled) => {
      const envelope = envelopeOf(await bash(spelled.replace("/PERSON", fakeHome)));
      expect(envelope.type).toBe("error");
      expect(envelope.error_text).toMatch(
        /^bash was refused: the command names ~\/\.\w+.*, which commands may not read: ~\/\.\w+ is in "sandbox\.denyRead" .*set "sandbox\.denyRead" in .*settings\.json to a list without/,
      );
      expect(await leaked()).toBe("");
    },
  );

  it.each([
    ["a redirection", "cat < ~/.aws/credentials > leak.txt"],
    ["a symlink in the workspace", "ln -sf ~/.ssh/id_ed25519 key; cat key > leak.txt"],
  ])("a command reading one through %s is refused, and nothing is copied", async (_how, command) => {
    expect(envelopeOf(await bash(command)).type).toBe("error");
    expect(await leaked()).toBe("");
  });

  it("reads them when the person's settings hide nothing (sandbox.denyRead: [])", async () => {
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ sandbox: { denyRead: [] } }));
    try {
      const run = await bash("cp ~/.ssh/id_ed25519 leak.txt");
      expect(envelopeOf(run).type).toBe("output");
      expect(await leaked()).toContain(SECRET);
    } finally {
      await rm(path.join(home, "settings.json"));
    }
  });

  it("lets a session's commands read its own truncated outputs, not another session's", async () => {
    const outputPath = (run: Awaited<ReturnType<typeof bash>>): string => {
      const envelope = envelopeOf(run) as { metadata: { output_path?: string } };
      expect(envelope.metadata.output_path).toBeDefined();
      return envelope.metadata.output_path as string;
    };
    const mine = outputPath(await bash("seq 1 200000", ["--session", "mine"]));
    const theirs = outputPath(await bash("seq 1 200000", ["--session", "theirs"]));
    // Positive control: the other session's whole output is there on the disk.
    expect((await readFile(theirs, "utf8")).split("\n")).toHaveLength(200001);

    const own = envelopeOf(await bash(`wc -l ${mine}`, ["--session", "mine"]));
    expect(own).toMatchObject({ type: "output", data: { output: `200000 ${mine}\n` } });

    const named = envelopeOf(await bash(`wc -l ${theirs}`, ["--session", "mine"]));
    expect(named.error_text).toMatch(/which holds Lathe's own data/);
    const hiddenRun = envelopeOf(
      await bash(`F=${path.dirname(theirs)}; cat "$F"/* | wc -l`, ["--session", "mine"]),
    );
    expect(hiddenRun).toMatchObject({
      type: "output",
      data: { output: expect.stringMatching(/(^|\n)0\n$/) },
    });
  });

  // Six lathe processes, four of them starting the MCP server: a 60 s limit leaves room for a loaded machine.
  it("a stdio MCP server cannot read them either, unless its own allowRead names one", async () => {
    const script = path.join(base, "reader-tools.json");
    await writeFile(
      script,
      JSON.stringify({
        tools: [{ name: "read_file", description: "Read a file.", inputSchema: { type: "object" } }],
      }),
    );
    const key = path.join(fakeHome, ".ssh/id_ed25519");
    const reader = (extra: object) => ({ command: process.execPath, args: [SCRIPTED_MCP, script], ...extra });
    const readKey = () => lathe(["call", "read_file", JSON.stringify({ path: key })]);

    // Positive control: the same server, in a sandbox that hides nothing, reads the key.
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ sandbox: { denyRead: [] }, mcpServers: { reader: reader({}) } }),
    );
    expect(JSON.stringify(envelopeOf(await readKey()))).toContain(SECRET);

    try {
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({ mcpServers: { reader: reader({}) } }),
      );
      const hidden = envelopeOf(await readKey());
      expect(JSON.stringify(hidden)).not.toContain(SECRET);
      expect(JSON.stringify(hidden)).toMatch(/cannot read: ENOENT/);

      // The person lets this one server read its own folder of secrets: it reads that, only that.
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({ mcpServers: { reader: reader({ allowRead: ["~/.ssh"] }) } }),
      );
      // allowRead is part of the server's pinned command line: it runs once the person approved it.
      expect(JSON.stringify(envelopeOf(await readKey()))).toMatch(/changed since you approved it/);
      const trust = await runLathe(["trust", "--mcp-server", "reader"], {
        home,
        cwd: ws,
        env: { HOME: fakeHome },
      });
      expect(trust.code, trust.stderr).toBe(0);
      expect(JSON.stringify(envelopeOf(await readKey()))).toContain(SECRET);
      const aws = envelopeOf(
        await lathe(["call", "read_file", JSON.stringify({ path: path.join(fakeHome, ".aws/credentials") })]),
      );
      expect(JSON.stringify(aws)).not.toContain(SECRET);
    } finally {
      await rm(path.join(home, "settings.json"), { force: true });
    }
  }, 60_000);
});
