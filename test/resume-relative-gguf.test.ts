import { copyFile, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setupAgentRun } from "../src/main/engine/agent/agent-setup.ts";
import { writeOldSession } from "./support/old-gguf-session.ts";
import { PACKAGE_ROOT } from "./support/lathe-cli.ts";

// Sessions recorded before gguf: models were kept by their absolute path hold the path as it was
// typed (`lathe run --model gguf:models/tiny.gguf` in the project folder). Resumed from another
// folder, it was read against that folder: "No GGUF file", or another file of that name.

const MODEL = path.resolve(PACKAGE_ROOT, "../shared/models/llama-2-tiny-random.gguf");
const SESSION = "s-old-1";

let home: string;
let root: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-old-spec-home-"));
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-old-spec-root-")));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

/** A session row as a Lathe from before gguf: paths were kept absolute wrote it. */
function oldSession(model: string): void {
  writeOldSession(home, SESSION, root, model);
}

describe("resuming a session that recorded a relative gguf: path", () => {
  it("reads it in the session's folder, from whatever folder the resume starts in, and says so", async () => {
    await mkdir(path.join(root, "models"));
    await copyFile(MODEL, path.join(root, "models", "tiny.gguf"));
    oldSession("gguf:models/tiny.gguf");
    // The resume starts elsewhere: the test's own folder is not the session's.
    expect(process.cwd()).not.toBe(root);
    const setup = await setupAgentRun({ latheHome: home, resume: SESSION, env: {} });
    try {
      const file = path.join(root, "models", "tiny.gguf");
      expect(setup.model.spec).toEqual({ provider: "gguf", model: file });
      expect(setup.notices).toContain(
        `Session ${SESSION} recorded its model as gguf:models/tiny.gguf, a path relative to the folder it ran in: it is read in the session's folder, as gguf:${file}. To run another file, pass --model gguf:<its absolute path>.`,
      );
    } finally {
      await setup.engine.close();
    }
  });

  it("refuses it, saying how to name the model, when the session's folder has no such file", async () => {
    oldSession("gguf:models/tiny.gguf");
    await expect(setupAgentRun({ latheHome: home, resume: SESSION, env: {} })).rejects.toMatchObject({
      code: "model_spec",
      message: `Session ${SESSION} recorded its model as gguf:models/tiny.gguf, a path relative to the folder it ran in, which was not recorded, and there is no models/tiny.gguf in the session's folder ${root}. Name the model again by its absolute path: lathe run --resume ${SESSION} --model gguf:<the .gguf file's absolute path> (in the app, pick it in the model picker).`,
    });
    // --model names it: the resume goes on.
    const setup = await setupAgentRun({
      latheHome: home,
      resume: SESSION,
      model: `gguf:${MODEL}`,
      env: {},
    });
    try {
      expect(setup.model.spec).toEqual({ provider: "gguf", model: MODEL });
    } finally {
      await setup.engine.close();
    }
  });

  it("leaves an absolute recorded path as it is", async () => {
    oldSession(`gguf:${MODEL}`);
    const setup = await setupAgentRun({ latheHome: home, resume: SESSION, env: {} });
    try {
      expect(setup.model.spec).toEqual({ provider: "gguf", model: MODEL });
      expect(setup.notices.join("\n")).not.toContain("recorded its model");
    } finally {
      await setup.engine.close();
    }
  });
});
