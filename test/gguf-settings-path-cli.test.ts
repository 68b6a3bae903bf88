import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";

// A relative `gguf:` path in a settings file names a file beside that settings file, wherever
// `lathe run` is started from: from another folder it used to be read against that folder.

const world = useCliWorld("lathe-gguf-settings-");

describe("a relative gguf: defaultModel", () => {
  it("in a trusted project's settings is read against that file's folder, not the current one", async () => {
    await mkdir(path.join(world.root, ".lathe"), { recursive: true });
    await writeFile(
      path.join(world.root, ".lathe", "settings.json"),
      JSON.stringify({ defaultModel: "gguf:models/none.gguf" }),
    );
    expect((await world.lathe(["trust", "--root", world.root])).code).toBe(0);
    const elsewhere = await world.folder("elsewhere");
    const run = await world.lathe(["run", "hello", "--root", world.root], { cwd: elsewhere });
    expect(run.code).not.toBe(0);
    // The message names the absolute path it looked at, beside the settings file.
    expect(run.stderr).toContain(`No GGUF file at ${path.join(world.root, ".lathe", "models", "none.gguf")}`);
    expect(run.stderr).not.toContain(elsewhere);
  });

  it("in the user's settings is read against $LATHE_HOME", async () => {
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({ defaultModel: "gguf:models/none.gguf" }),
    );
    const elsewhere = await world.folder("elsewhere");
    const run = await world.lathe(["run", "hello", "--root", world.root], { cwd: elsewhere });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`No GGUF file at ${path.join(world.home, "models", "none.gguf")}`);
  });
});

describe("a relative gguf: model in an agent manifest", () => {
  it("is read against the manifest's folder, not the current one", async () => {
    await mkdir(path.join(world.home, "agents"), { recursive: true });
    await writeFile(
      path.join(world.home, "agents", "local.md"),
      "---\ndescription: Runs on a file beside it.\nmodel: gguf:models/none.gguf\n---\nGo.\n",
    );
    const elsewhere = await world.folder("elsewhere");
    const run = await world.lathe(["run", "hello", "--root", world.root, "--agent", "local"], {
      cwd: elsewhere,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`No GGUF file at ${path.join(world.home, "agents", "models", "none.gguf")}`);
    expect(run.stderr).not.toContain(elsewhere);
  });
});
