import { execFileSync } from "node:child_process";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openFakeHome, runCalls, type Call, type FakeHome } from "./support/fake-home.ts";
import type { Engine } from "../src/main/engine/engine.ts";
import type { ApprovalMode } from "../src/main/engine/config/lathe-settings.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";
import { envelopeOf, runLathe } from "./support/lathe-cli.ts";

// sandbox.denyRead hides a person's credentials from every process Lathe confines. Lathe's own
// file tools (read, write, edit, glob, grep) are not processes: they hold to the same list
// themselves. They only work inside the workspace, so this matters when the workspace holds the
// credentials: a person who opens their home folder. These rows open the (fake) home folder as
// the workspace; $LATHE_HOME is its `.lathe`, as by default.
//
// Every hostile row has a positive control: the same call in an engine whose settings hide
// nothing ("denyRead": []) really reads the key, lists it, or adds a key to authorized_keys.
// Case tricks (".SSH") are not a way in on Linux, where names are case-sensitive: ".SSH" is
// another folder, which stays readable (a row below). They are not tested on macOS here.

const SECRET = "SECRET-KEY-4d7c0b9e1a2f";
const TOKEN = "tok-b2c4d6e8f0a1c3e5";
const ATTACKER = "ssh-ed25519 AAAAC3NzaATTACKER attacker@evil";
const PERSON_KEY = "ssh-ed25519 AAAAC3NzaPERSON person@laptop\n";

let person: string;
let latheHome: string;
let controlHome: string;
let contained: Engine;
let control: Engine;

const SECRET_FILES = [".ssh/id_ed25519", ".aws/credentials", ".netrc", ".docker/config.json"];

/** The fake home folder, as a person has it: keys, and ordinary files beside them. */
async function resetHome(): Promise<void> {
  for (const name of [".ssh", ".aws", ".docker", ".netrc", "project", ".SSH"])
    await rm(path.join(person, name), { recursive: true, force: true });
  for (const file of SECRET_FILES) {
    await mkdir(path.dirname(path.join(person, file)), { recursive: true });
    await writeFile(path.join(person, file), `${SECRET}\n`);
  }
  await writeFile(path.join(person, ".ssh/authorized_keys"), PERSON_KEY);
  await writeFile(path.join(person, ".sshrc"), "echo SAFE-sshrc\n");
  await writeFile(path.join(person, "notes.txt"), "SAFE notes\n");
  await mkdir(path.join(person, ".SSH"));
  await writeFile(path.join(person, ".SSH/readme.txt"), "SAFE upper-case folder\n");
  await mkdir(path.join(person, "project"));
  await writeFile(path.join(person, "project/readme.md"), "SAFE project\n");
  // Symlinks into the hidden folder from inside the workspace: to the folder and to a key.
  await symlink(path.join(person, ".ssh"), path.join(person, "project/keys"));
  await symlink(path.join(person, ".ssh/id_ed25519"), path.join(person, "project/key"));
}

let home: FakeHome | undefined;

beforeAll(async () => {
  home = await openFakeHome({
    prefix: "lathe-file-secrets-",
    settings: {
      mcpServers: {
        remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: TOKEN }, disabled: true },
      },
    },
    controlSettings: { sandbox: { denyRead: [] } },
    prepare: async (folders) => {
      ({ person, latheHome, controlHome } = folders);
      await mkdir(path.join(latheHome, "models"));
      await writeFile(path.join(latheHome, "models/tiny.gguf"), "SAFE model\n");
      await resetHome();
    },
  });
  ({ contained, control } = home);
});

afterAll(() => home?.close());

beforeEach(resetHome);

const run = runCalls;

const text = (envelope: Envelope): string => JSON.stringify(envelope);
const authorizedKeys = () => readFile(path.join(person, ".ssh/authorized_keys"), "utf8");

/** The refusal: which entry hides it, and where the user could change that. */
function expectHiddenRefusal(envelope: Envelope, tool: string, entry: string): void {
  expect(envelope.type).toBe("error");
  if (envelope.type !== "error") return;
  expect(envelope.error_text).toMatch(new RegExp(`^${tool} was refused: "[^"]+"( \\([^)]*\\))? is hidden`));
  expect(envelope.error_text).toContain(`${entry} is in "sandbox.denyRead"`);
  expect(envelope.error_text).toContain(
    `set "sandbox.denyRead" in ${path.join(latheHome, "settings.json")} to a list without ${entry}`,
  );
  expect(envelope.error_text).not.toContain(SECRET);
}

describe("the file tools over a workspace that holds the person's credentials", () => {
  const ABS = "<abs>";
  it.each<{ name: string; path: string; entry: string }>([
    { name: "an ssh key", path: ".ssh/id_ed25519", entry: "~/.ssh" },
    { name: "an ssh key, by absolute path", path: `${ABS}/.ssh/id_ed25519`, entry: "~/.ssh" },
    { name: "an ssh key, through ..", path: "project/../.ssh/id_ed25519", entry: "~/.ssh" },
    { name: "an ssh key, through a symlinked file", path: "project/key", entry: "~/.ssh" },
    { name: "an ssh key, through a symlinked folder", path: "project/keys/id_ed25519", entry: "~/.ssh" },
    { name: "AWS credentials", path: ".aws/credentials", entry: "~/.aws" },
    { name: "the netrc (a file entry)", path: ".netrc", entry: "~/.netrc" },
    {
      name: "docker's logins (a file in a folder)",
      path: ".docker/config.json",
      entry: "~/.docker/config.json",
    },
  ])("read of $name: readable with denyRead [], refused by default", async ({ path: p, entry }) => {
    const args = { path: p.replace(ABS, person) };
    const leak = await run(control, [["read", args]]);
    expect(leak.type).toBe("output");
    expect(text(leak)).toContain(SECRET);

    const refused = await run(contained, [["read", args]]);
    expectHiddenRefusal(refused, "read", entry);
  });

  it.each<ApprovalMode>(["ask", "allowlist", "yolo"])(
    "in %s mode too: it is the containment, not an approval",
    async (mode) => {
      expectHiddenRefusal(
        await run(contained, [["read", { path: ".ssh/id_ed25519" }]], mode),
        "read",
        "~/.ssh",
      );
      const write = await run(
        contained,
        [["write", { path: ".ssh/authorized_keys2", content: ATTACKER }]],
        mode,
      );
      expectHiddenRefusal(write, "write", "~/.ssh");
    },
  );

  it.each<{ name: string; calls: Call[] }>([
    {
      name: "write over authorized_keys",
      calls: [
        ["read", { path: ".ssh/authorized_keys" }],
        ["write", { path: ".ssh/authorized_keys", content: `${PERSON_KEY}${ATTACKER}\n` }],
      ],
    },
    {
      name: "edit of authorized_keys",
      calls: [
        ["read", { path: ".ssh/authorized_keys" }],
        [
          "edit",
          { path: ".ssh/authorized_keys", old_string: PERSON_KEY, new_string: `${PERSON_KEY}${ATTACKER}\n` },
        ],
      ],
    },
    {
      name: "write through a symlinked folder",
      calls: [
        ["read", { path: "project/keys/authorized_keys" }],
        ["write", { path: "project/keys/authorized_keys", content: `${ATTACKER}\n` }],
      ],
    },
  ])("$name: adds a key with denyRead [], refused by default, file unchanged", async ({ calls }) => {
    const done = await run(control, calls);
    expect(done.type).toBe("output");
    expect(await authorizedKeys()).toContain(ATTACKER);
    await writeFile(path.join(person, ".ssh/authorized_keys"), PERSON_KEY);

    // The read before it was refused already; the change itself is refused too.
    expectHiddenRefusal(await run(contained, calls), calls.at(-1)?.[0] ?? "", "~/.ssh");
    expect(await authorizedKeys()).toBe(PERSON_KEY);
  });

  it("write of a new file in the hidden folder: made with denyRead [], refused by default", async () => {
    const call: Call = ["write", { path: ".ssh/authorized_keys2", content: ATTACKER }];
    expect((await run(control, [call])).type).toBe("output");
    expect(await readFile(path.join(person, ".ssh/authorized_keys2"), "utf8")).toBe(ATTACKER);
    await rm(path.join(person, ".ssh/authorized_keys2"));

    expectHiddenRefusal(await run(contained, [call]), "write", "~/.ssh");
    await expect(readFile(path.join(person, ".ssh/authorized_keys2"))).rejects.toThrow(/ENOENT/);
  });

  it("grep over the home folder: prints the keys with denyRead [], leaves them out by default and says so", async () => {
    const call: Call = ["grep", { pattern: "SECRET-KEY|SAFE", output_mode: "content" }];
    const leak = await run(control, [call]);
    expect(text(leak)).toContain(SECRET);

    const found = await run(contained, [call]);
    expect(found.type).toBe("output");
    expect(text(found)).not.toContain(SECRET);
    const data = (found as Extract<Envelope, { type: "output" }>).data as {
      matches: { path: string }[];
      note?: string;
    };
    // What must keep working: the files beside the hidden ones, `.sshrc`, `.SSH` (another folder).
    expect(data.matches.map((m) => m.path).sort()).toEqual(
      [".SSH/readme.txt", ".lathe/models/tiny.gguf", ".sshrc", "notes.txt", "project/readme.md"].sort(),
    );
    expect(data.note).toMatch(/^left out \d+ hidden paths, which no tool or command may read: /);
    for (const entry of ["~/.ssh", "~/.aws", "~/.netrc", "~/.docker/config.json"])
      expect(data.note).toContain(entry);
    expect(data.note).toContain("(sandbox.denyRead)");
    expect(data.note).toContain("~/.lathe (Lathe's own data)");
  });

  it("glob over the home folder: lists the keys with denyRead [], leaves them out by default and says so", async () => {
    const call: Call = ["glob", { pattern: "**/*" }];
    const listed = (await run(control, [call])) as Extract<Envelope, { type: "output" }>;
    expect((listed.data as { files: string[] }).files).toContain(".ssh/id_ed25519");

    const found = await run(contained, [call]);
    expect(found.type).toBe("output");
    const data = (found as Extract<Envelope, { type: "output" }>).data as { files: string[]; note?: string };
    expect(
      data.files.filter((f) => /^\.(ssh|aws|netrc|docker)\b/.test(f) || f.startsWith("project/key")),
    ).toEqual([]);
    // Of $LATHE_HOME, only its public folders show (as to a sandboxed command).
    expect(data.files).toContain(".lathe/models/tiny.gguf");
    expect(
      data.files.filter((f) => f.startsWith(".lathe/") && !/^\.lathe\/(models|cache)\//.test(f)),
    ).toEqual([]);
    expect(data.files).toEqual(expect.arrayContaining([".sshrc", "notes.txt", ".SSH/readme.txt"]));
    expect(data.note).toContain("~/.ssh");
  });

  it.each<{ name: string; call: Call; leak: string }>([
    { name: "glob with path .ssh", call: ["glob", { pattern: "*", path: ".ssh" }], leak: ".ssh/id_ed25519" },
    { name: "glob of .ssh/*", call: ["glob", { pattern: ".ssh/*" }], leak: ".ssh/id_ed25519" },
    { name: "glob of .netrc", call: ["glob", { pattern: ".netrc" }], leak: ".netrc" },
    { name: "grep in .aws", call: ["grep", { pattern: "SECRET", path: ".aws" }], leak: ".aws/credentials" },
    {
      name: "grep with glob .ssh/*",
      call: ["grep", { pattern: "SECRET", glob: ".ssh/*" }],
      leak: ".ssh/id_ed25519",
    },
  ])("$name: finds the key with denyRead [], refused like read by default", async ({ call, leak }) => {
    expect(text(await run(control, [call]))).toContain(leak);
    const refused = await run(contained, [call]);
    expect(refused.type).toBe("error");
    expect(text(refused)).toContain('is in \\"sandbox.denyRead\\"');
    expect(text(refused)).not.toContain(SECRET);
  });

  it.each<{ name: string; call: Call }>([
    { name: 'glob "**/.ssh/*"', call: ["glob", { pattern: "**/.ssh/*" }] },
    { name: 'grep with glob "**/.ssh/*"', call: ["grep", { pattern: "SECRET|SAFE", glob: "**/.ssh/*" }] },
  ])(
    "$name (no literal leading folder): finds the key with denyRead [], by default only the project's .ssh, with a note",
    async ({ call }) => {
      await mkdir(path.join(person, "project/.ssh"));
      await writeFile(path.join(person, "project/.ssh/config"), "SAFE project ssh config\n");
      expect(text(await run(control, [call]))).toContain(".ssh/id_ed25519");
      // Not refused up front: the pattern also means folders nothing hides, which it still finds.
      const found = await run(contained, [call]);
      expect(found.type).toBe("output");
      expect(text(found)).not.toContain(".ssh/id_ed25519");
      expect(text(found)).toContain("project/.ssh/config");
      const note = (found as Extract<Envelope, { type: "output" }>).data as { note?: string };
      expect(note.note).toMatch(/^left out \d+ hidden paths, which no tool or command may read: .*~\/\.ssh/);
    },
  );

  it.each<{ name: string; file: string; secret: string }>([
    { name: "the user's settings (an MCP server's token)", file: ".lathe/settings.json", secret: TOKEN },
  ])(
    "LATHE_HOME's private data, $name: plain cat reads it, the file tools do not",
    async ({ file, secret }) => {
      // Positive control: outside Lathe the file is there and holds the secret.
      expect(execFileSync("cat", [file], { cwd: person, encoding: "utf8" })).toContain(secret);

      const refused = await run(contained, [["read", { path: file }]]);
      expect(refused.type).toBe("error");
      expect(text(refused)).toMatch(/read was refused: .* is Lathe's own data/);
      expect(text(refused)).not.toContain(secret);
      const grep = await run(contained, [["grep", { pattern: secret, output_mode: "content" }]]);
      expect(text(grep)).not.toContain(secret);
      const write = await run(contained, [["write", { path: ".lathe/settings.json", content: "{}" }]]);
      expect(text(write)).toMatch(/write was refused: .* is Lathe's own data/);
      expect(await readFile(path.join(person, file), "utf8")).toContain(secret);
    },
  );

  it.each([".sshrc", "notes.txt", ".SSH/readme.txt", "project/readme.md", ".lathe/models/tiny.gguf"])(
    "keeps reading %s, beside the hidden folders",
    async (p) => {
      const envelope = await run(contained, [["read", { path: p }]]);
      expect(envelope.type).toBe("output");
      expect(text(envelope)).toContain("SAFE");
    },
  );

  it("keeps reading the session's own truncated output (it lies in $LATHE_HOME)", async () => {
    await writeFile(
      path.join(person, "many.txt"),
      Array.from({ length: 400 }, (_, i) => `SAFE ${i}`).join("\n"),
    );
    const session = await contained.openSession({ mode: "yolo" });
    try {
      const grep = await session.call("grep", {
        pattern: "SAFE \\d+",
        path: "many.txt",
        output_mode: "content",
      });
      expect(grep.type).toBe("output");
      const outputPath = grep.metadata.output_path as string;
      expect(outputPath.startsWith(latheHome)).toBe(true);
      const read = await session.call("read", { path: outputPath });
      expect(read.type).toBe("output");
      expect(text(read)).toContain("SAFE 399");
    } finally {
      await session.close();
      await rm(path.join(person, "many.txt"));
    }
  });
});

describe("the CLI holds to it too (same engine)", () => {
  const cli = (args: string[], home: string) =>
    runLathe([...args, "--mode", "yolo"], { home, cwd: person, env: { HOME: person } });

  it("read of ~/.ssh/id_ed25519: printed with denyRead [], refused by default", async () => {
    const leak = await cli(["call", "read", '{"path":".ssh/id_ed25519"}'], controlHome);
    expect(envelopeOf(leak).type).toBe("output");
    expect(leak.stdout).toContain(SECRET);

    const refused = await cli(["call", "read", '{"path":".ssh/id_ed25519"}'], latheHome);
    expect(envelopeOf(refused).error_text).toMatch(/^read was refused: ".ssh\/id_ed25519" is hidden/);
    expect(refused.stdout).not.toContain(SECRET);
  });

  it("write of ~/.ssh/authorized_keys2: made with denyRead [], refused by default", async () => {
    const args = JSON.stringify({ path: ".ssh/authorized_keys2", content: ATTACKER });
    expect(envelopeOf(await cli(["call", "write", args], controlHome)).type).toBe("output");
    expect(await readFile(path.join(person, ".ssh/authorized_keys2"), "utf8")).toBe(ATTACKER);
    await rm(path.join(person, ".ssh/authorized_keys2"));

    const refused = await cli(["call", "write", args], latheHome);
    expect(envelopeOf(refused).error_text).toMatch(/^write was refused: /);
    await expect(readFile(path.join(person, ".ssh/authorized_keys2"))).rejects.toThrow(/ENOENT/);
  });
});
