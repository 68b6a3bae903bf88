import { writeFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { SETTINGS_FOLDER_MODE, SettingsFile, type SettingsDocument } from "./settings-file.ts";

const USER = { folderMode: SETTINGS_FOLDER_MODE.user };
const PROJECT = { folderMode: SETTINGS_FOLDER_MODE.project };

// root ignores folder permissions, so the read-only folder case cannot be staged as root.
const asRoot = process.getuid?.() === 0;
if (asRoot) console.warn("settings-file: the read-only folder case is skipped: running as root.");

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-settings-file-"));
  file = path.join(dir, "settings.json");
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const addServer =
  (name: string, command = "node") =>
  (document: SettingsDocument) => {
    const servers = (document["mcpServers"] ?? {}) as Record<string, unknown>;
    servers[name] = { command, args: ["server.js"] };
    document["mcpServers"] = servers;
  };

describe("SettingsFile", () => {
  it("creates a missing file (and its folder) holding only what was set, readable by the user alone", async () => {
    const nested = new SettingsFile(path.join(dir, "home", "settings.json"), USER);
    const settings = await nested.update(addServer("files"));
    expect(settings.mcpServers["files"]).toMatchObject({ command: "node", args: ["server.js"], env: {} });
    const text = await readFile(nested.file, "utf8");
    // The file keeps what was written, not every default the schema fills in.
    expect(JSON.parse(text)).toEqual({ mcpServers: { files: { command: "node", args: ["server.js"] } } });
    expect(text.endsWith("}\n")).toBe(true);
    expect((await stat(nested.file)).mode & 0o777).toBe(0o600);
  });

  // The folders a save made had no mode of their own: a Lathe home made by the app's first save
  // (the Settings view, an MCP server added) was 0755 under the usual umask, so other users could
  // list and read what Lathe keeps there.
  it("makes a missing Lathe home the user's alone, a project's .lathe/ by the umask, and keeps a folder's own mode", async () => {
    const modeOf = async (p: string) => (await stat(p)).mode & 0o777;
    // The usual umask, whatever this process was started with (tests run in a process of their own).
    const before = process.umask(0o022);
    onTestFinished(() => void process.umask(before));
    // The control: a folder made with no mode, as before, is open to others under the usual umask.
    await mkdir(path.join(dir, "plain"));
    const plain = await modeOf(path.join(dir, "plain"));
    expect(plain).toBe(0o755);

    const home = path.join(dir, "new-home", ".lathe");
    await new SettingsFile(path.join(home, "settings.json"), USER).update(addServer("files"));
    expect(await modeOf(home)).toBe(0o700);
    expect(await modeOf(path.join(dir, "new-home"))).toBe(0o700);

    const project = path.join(dir, "project");
    await mkdir(project, { mode: 0o755 });
    await chmod(project, 0o755);
    await new SettingsFile(path.join(project, ".lathe", "settings.json"), PROJECT).update(addServer("files"));
    expect(await modeOf(path.join(project, ".lathe"))).toBe(plain);
    expect(await modeOf(project)).toBe(0o755);

    // A home the person made keeps its mode.
    const own = path.join(dir, "own-home");
    await mkdir(own);
    await chmod(own, 0o750);
    await new SettingsFile(path.join(own, "settings.json"), USER).update(addServer("files"));
    expect(await modeOf(own)).toBe(0o750);
  });

  it("keeps everything else in the file as written and its permissions", async () => {
    const original = {
      $schema: "https://example.invalid/lathe.json",
      permissions: [{ permission: "read", pattern: "*", action: "allow" }],
      approvals: { mode: "ask" },
    };
    await writeFile(file, JSON.stringify(original));
    await chmod(file, 0o640);
    await new SettingsFile(file, USER).update(addServer("files"));
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      ...original,
      mcpServers: { files: { command: "node", args: ["server.js"] } },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  it("writes through a symlink to the real file, leaving the link in place", async () => {
    const real = path.join(dir, "real-settings.json");
    await writeFile(real, "{}");
    await symlink(real, file);
    await new SettingsFile(file, USER).update(addServer("files"));
    expect((await readdir(dir)).sort()).toEqual(["real-settings.json", "settings.json"]);
    expect(JSON.parse(await readFile(real, "utf8"))).toHaveProperty("mcpServers.files");
  });

  it("refuses a link to a file that is gone, and leaves the link as it is", async () => {
    const target = path.join(dir, "dotfiles", "lathe.json");
    await symlink(target, file);
    const settingsFile = new SettingsFile(file, USER);
    const message =
      /settings\.json is a symbolic link to .*dotfiles\/lathe\.json, which does not exist.*did not change anything/;
    await expect(settingsFile.read()).rejects.toThrow(message);
    await expect(settingsFile.update(addServer("files"))).rejects.toThrow(message);
    expect(await readdir(dir)).toEqual(["settings.json"]);
    await expect(readFile(target)).rejects.toThrow(/ENOENT/);
  });

  it("applies concurrent updates one after the other, losing none", async () => {
    const names = ["a", "b", "c", "d", "e", "f"];
    await Promise.all(names.map((name) => new SettingsFile(file, USER).update(addServer(name))));
    const { settings } = await new SettingsFile(file, USER).read();
    expect(Object.keys(settings.mcpServers).sort()).toEqual(names);
    // No temporary file is left behind.
    expect(await readdir(dir)).toEqual(["settings.json"]);
  });

  it.each([
    {
      name: "not JSON",
      text: '{ "mcpServers": { ',
      message: /is not valid JSON.*did not change it.*fix its syntax/s,
    },
    { name: "an array", text: "[]", message: /must hold one JSON object/ },
    {
      name: "an unknown key",
      text: JSON.stringify({ mcpServer: {} }),
      message: /is not valid Lathe settings:[\s\S]*mcpServer[\s\S]*did not change it/,
    },
    {
      name: "a wrong type",
      text: JSON.stringify({ permissions: "all" }),
      message: /- permissions: /,
    },
    {
      // Saved back as JSON.parse read it, the first block (the deny rule) would be gone for good.
      name: "one with permissions written twice",
      text: '{\n  "permissions": [{ "permission": "read", "pattern": "secrets/**", "action": "deny" }],\n  "permissions": []\n}\n',
      message:
        /is not valid JSON \(line 3, column 3: "permissions" is written a second time \(first on line 2\).*\)\. Lathe did not change it/s,
    },
    {
      name: "empty",
      text: "",
      message:
        /is not valid JSON \(it is empty: write \{\} for no settings, or delete the file\)\. Lathe did not change it/,
    },
  ])("refuses a file that is $name and leaves it byte for byte", async ({ text, message }) => {
    await writeFile(file, text);
    const settingsFile = new SettingsFile(file, USER);
    await expect(settingsFile.update(addServer("files"))).rejects.toThrow(message);
    await expect(settingsFile.read()).rejects.toThrow(message);
    expect(await readFile(file, "utf8")).toBe(text);
    expect(await readdir(dir)).toEqual(["settings.json"]);
  });

  it.each([
    {
      name: "an empty command",
      change: addServer("files", ""),
      field: /mcpServers\.files\.command: /,
    },
    {
      name: "a server name with a slash",
      change: addServer("a/b"),
      field: /mcpServers\.a\/b: .*letters, digits/,
    },
    {
      name: "a disabledPlugins entry with a space",
      change: (document: SettingsDocument) => {
        document["disabledPlugins"] = ["word count"];
      },
      field: /disabledPlugins\.0: .*plugin folder name/,
    },
    {
      name: "an unknown key",
      change: (document: SettingsDocument) => {
        document["extras"] = true;
      },
      field: /- extras: is not a known setting/,
    },
  ])("does not save a change that adds $name, and names the field", async ({ change, field }) => {
    const before = JSON.stringify({ approvals: { mode: "ask" } }, null, 2);
    await writeFile(file, before);
    const error = await new SettingsFile(file, USER).update(change).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toMatch(/The change was not saved/);
    expect(error?.message).toMatch(field);
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("leaves the file alone when it changes on disk while the change is being saved", async () => {
    await writeFile(file, "{}");
    const settingsFile = new SettingsFile(file, USER);
    const update = settingsFile.update((document) => {
      addServer("mine")(document);
      // Someone else saves the file between Lathe's read and its write.
      writeFileSync(file, JSON.stringify({ approvals: { mode: "yolo" } }));
    });
    await expect(update).rejects.toThrow(/changed while Lathe was saving/);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ approvals: { mode: "yolo" } });
  });

  it.each([
    { layout: "tabs and CRLF, with a final line break", indent: "\t", eol: "\r\n", final: true },
    { layout: "four spaces and LF, without a final line break", indent: "    ", eol: "\n", final: false },
    { layout: "two spaces and CRLF, without a final line break", indent: "  ", eol: "\r\n", final: false },
  ])("keeps the file's own layout when it saves a change: $layout", async ({ indent, eol, final }) => {
    const original = { approvals: { mode: "ask" }, defaultModel: "ollama:m" };
    const written = (value: unknown) => {
      const text = JSON.stringify(value, null, indent).replaceAll("\n", eol);
      return final ? `${text}${eol}` : text;
    };
    await writeFile(file, written(original));
    await new SettingsFile(file, USER).update(addServer("files"));
    const saved = await readFile(file, "utf8");
    const expected = { ...original, mcpServers: { files: { command: "node", args: ["server.js"] } } };
    // Byte for byte what the user's editor would have written: only the change differs.
    expect(saved).toBe(written(expected));
  });

  it("reads a file saved with a byte-order mark, and saves it with the mark still first", async () => {
    // As Windows Notepad saves UTF-8: the mark, then the JSON laid out as the person wrote it.
    const original = '\uFEFF{\r\n\t"defaultModel": "ollama:m"\r\n}\r\n';
    await writeFile(file, original);
    expect((await new SettingsFile(file, USER).read()).settings.defaultModel).toBe("ollama:m");
    await new SettingsFile(file, USER).update((d) => {
      d.defaultModel = "ollama:n";
    });
    const bytes = await readFile(file);
    expect([...bytes.subarray(0, 4)]).toEqual([0xef, 0xbb, 0xbf, "{".charCodeAt(0)]);
    expect(bytes.toString("utf8")).toBe(original.replace("ollama:m", "ollama:n"));
    // Read again, the mark does not get in the way, and a second save keeps it once.
    await new SettingsFile(file, USER).update((d) => {
      d.defaultModel = "ollama:o";
    });
    expect(await readFile(file, "utf8")).toBe(original.replace("ollama:m", "ollama:o"));
  });

  it.each([
    ["with a final line break", "\n"],
    ["without one", ""],
  ])(
    "keeps a settings file written on one line on one line when it saves a change (%s)",
    async (_name, end) => {
      await writeFile(file, `{"defaultModel":"ollama:m","approvals":{"mode":"ask"}}${end}`);
      await new SettingsFile(file, USER).update(addServer("files"));
      expect(await readFile(file, "utf8")).toBe(
        `{"defaultModel":"ollama:m","approvals":{"mode":"ask"},"mcpServers":{"files":{"command":"node","args":["server.js"]}}}${end}`,
      );
    },
  );

  it("lays out a file holding only {} as a new one: the first setting saved gets its own line", async () => {
    await writeFile(file, "{}\n");
    await new SettingsFile(file, USER).update((d) => {
      d.defaultModel = "ollama:m";
    });
    expect(await readFile(file, "utf8")).toBe('{\n  "defaultModel": "ollama:m"\n}\n');
  });

  it("reads a missing file as empty settings", async () => {
    const { document, settings } = await new SettingsFile(path.join(dir, "none.json"), USER).read();
    expect(document).toEqual({});
    expect(settings.mcpServers).toEqual({});
    expect(settings.disabledPlugins).toEqual([]);
  });

  it("reads settings under a plain file named like their folder (.lathe) as empty", async () => {
    await writeFile(path.join(dir, ".lathe"), "another tool's file\n");
    const { document } = await new SettingsFile(path.join(dir, ".lathe", "settings.json"), PROJECT).read();
    expect(document).toEqual({});
  });

  it("refuses to save under a plain file named like their folder, saying which file is in the way", async () => {
    const dotfile = path.join(dir, ".lathe");
    await writeFile(dotfile, "another tool's file\n");
    await expect(
      new SettingsFile(path.join(dotfile, "settings.json"), USER).update(addServer("x")),
    ).rejects.toThrow(/\.lathe, or a folder above it, is a file, not a folder.*rename or move that file/);
    expect(await readFile(dotfile, "utf8")).toBe("another tool's file\n");
  });

  it.skipIf(asRoot)("reports a folder it cannot write without touching the file", async () => {
    const locked = path.join(dir, "locked");
    await mkdir(locked);
    const inside = path.join(locked, "settings.json");
    await writeFile(inside, "{}");
    await chmod(locked, 0o500);
    try {
      await expect(new SettingsFile(inside, USER).update(addServer("x"))).rejects.toThrow(
        /Cannot save .*left as it was/,
      );
      expect(await readFile(inside, "utf8")).toBe("{}");
    } finally {
      await chmod(locked, 0o700);
    }
  });
});
