import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readlink, realpath, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addGgufFile, listGgufFiles } from "../src/main/engine/agent/models/gguf-folder.ts";
import { LlamaRuntime } from "../src/main/engine/agent/providers/gguf/llama-runtime.ts";
import { writeGgufSplit } from "./fixtures/gguf-split-writer.ts";
import { PACKAGE_ROOT } from "./support/lathe-cli.ts";

// A split model as the Hugging Face cache keeps it: each part a blob named by its hash, reached
// through a link under the part's own name in snapshots/<revision>/. The part names are only on
// the links, so the set must be recognised, listed and loaded by them, never by the blobs'.

const MODEL = path.resolve(PACKAGE_ROOT, "../shared/models/llama-2-tiny-random.gguf");
const present = existsSync(MODEL);
if (!present) console.log(`skipping the split GGUF model in the Hugging Face cache: ${MODEL} is not there`);

const PARTS = 3;
const partName = (n: number) => `tiny-0000${n}-of-0000${PARTS}.gguf`;

describe.skipIf(!present)("a split GGUF model in the Hugging Face cache", () => {
  let own: string;
  let snapshot: string;
  let blobs: string;
  let runtime: LlamaRuntime;
  beforeAll(async () => {
    own = await mkdtemp(path.join(os.tmpdir(), "lathe-hf-split-"));
    const repo = path.join(own, "hub", "models--org--tiny-GGUF");
    blobs = path.join(repo, "blobs");
    snapshot = path.join(repo, "snapshots", "0123abcd");
    await mkdir(blobs, { recursive: true });
    await mkdir(snapshot, { recursive: true });
    const hashes = Array.from({ length: PARTS }, (_, i) => `9f${i}e71c0d5b${i}`);
    await writeGgufSplit(
      MODEL,
      hashes.map((h) => path.join(blobs, h)),
    );
    for (const [i, hash] of hashes.entries()) {
      await symlink(path.join("..", "..", "blobs", hash), path.join(snapshot, partName(i + 1)));
    }
    runtime = new LlamaRuntime({ maxThreads: 1 });
  });
  afterAll(async () => {
    await runtime?.dispose();
    await rm(own, { recursive: true, force: true });
  });

  it("is a real split set: each blob holds a share of the tensors and says which part it is", async () => {
    const { readGgufFileInfo } = await import("node-llama-cpp");
    const whole = await readGgufFileInfo(MODEL, { logWarnings: false });
    let tensors = 0;
    for (let n = 1; n <= PARTS; n++) {
      const blob = await realpath(path.join(snapshot, partName(n)));
      const info = await readGgufFileInfo(blob, { logWarnings: false });
      expect(info.metadata).toMatchObject({ split: { no: n - 1, count: PARTS } });
      tensors += info.tensorInfo?.length ?? 0;
    }
    expect(tensors).toBe(whole.tensorInfo?.length);
  });

  // llama.cpp finds the other parts by the first part's name: run by the blob's hash name, it
  // failed with "invalid split file name" (Lathe added "the file may be truncated"), and the
  // runtime that had failed that load never finished disposing of itself once it had loaded
  // another model (the app could not quit).
  it("by a blob's hash name, is refused before llama.cpp, saying which name to use; the runtime still loads and closes", async () => {
    const second = new LlamaRuntime({ maxThreads: 1 });
    const blob = await realpath(path.join(snapshot, partName(1)));
    await expect(second.lease(blob, { contextSize: 256, threads: 1 })).rejects.toMatchObject({
      code: "model_unavailable",
      message: `${blob} cannot be run by this name: it is part 1 of a model split in ${PARTS}, and its name does not say so (llama.cpp finds the parts by names ending in -00001-of-0000${PARTS}.gguf and on): name its first part by that name; in the Hugging Face cache, the link in snapshots/<revision>/, not the blob it points to.`,
    });
    const lease = await second.lease(path.join(snapshot, partName(1)), { contextSize: 256, threads: 1 });
    lease.release();
    await second.dispose();
  }, 30_000);

  it("by a blob's hash name or a link of another name, is not added, and such a link in the models folder is listed as not runnable", async () => {
    const home = path.join(own, "home-unnamed");
    const blob = await realpath(path.join(snapshot, partName(2)));
    await expect(addGgufFile(home, blob)).rejects.toThrow(
      `${blob} cannot be added by this name: it is part 2 of a model split in ${PARTS}, and its name does not say so`,
    );
    await symlink(path.join(snapshot, partName(1)), path.join(own, "model.gguf"));
    await expect(addGgufFile(home, path.join(own, "model.gguf"))).rejects.toThrow(
      /model\.gguf cannot be added by this name: it is part 1 of a model split in 3/,
    );
    await mkdir(path.join(home, "models"), { recursive: true });
    await symlink(path.join(snapshot, partName(1)), path.join(home, "models", "model.gguf"));
    expect(await listGgufFiles(home)).toEqual([
      expect.objectContaining({
        name: "model.gguf",
        problem: expect.stringMatching(/^it is part 1 of a model split in 3, and its name does not say so/),
      }),
    ]);
  });

  it("loads from the snapshot's first link, all parts read", async () => {
    const first = path.join(snapshot, partName(1));
    const model = await runtime.model(first);
    expect(model.fileInfo.splicedParts).toBe(PARTS);
    const lease = await runtime.lease(first, { contextSize: 256, threads: 1 });
    expect(lease.sequence.contextSize).toBeGreaterThanOrEqual(256);
    lease.release();
  });

  it("is added by any part as one model, listed once by its set's name, and loads from the models folder", async () => {
    const home = path.join(own, "home");
    const added = await addGgufFile(home, path.join(snapshot, partName(2)));
    expect(added).toBe(path.join(home, "models", partName(1)));
    for (let n = 1; n <= PARTS; n++) {
      expect(await readlink(path.join(home, "models", partName(n)))).toBe(
        await realpath(path.join(snapshot, partName(n))),
      );
    }
    const listed = await listGgufFiles(home);
    expect(listed).toEqual([
      expect.objectContaining({ path: added, name: `tiny (${PARTS} parts)`, title: "LLaMA v2" }),
    ]);
    expect(listed[0]).not.toHaveProperty("problem");
    const model = await runtime.model(added);
    expect(model.fileInfo.splicedParts).toBe(PARTS);
  });

  it("with a part's link gone, says which part is missing, in the list and at the load", async () => {
    const home = path.join(own, "home-missing");
    await addGgufFile(home, path.join(snapshot, partName(1)));
    await rm(path.join(home, "models", partName(3)));
    const first = path.join(home, "models", partName(1));
    expect(await listGgufFiles(home)).toEqual([
      expect.objectContaining({
        path: first,
        problem: `part 3 of ${PARTS} is missing (${partName(3)}): put it beside the other parts`,
      }),
    ]);
    await expect(runtime.lease(first, { contextSize: 256, threads: 1 })).rejects.toMatchObject({
      code: "model_unavailable",
      message: `${first} is one part of a model split in ${PARTS}, and part 3 of ${PARTS} is missing (${partName(3)}): put it beside the other parts.`,
    });
  });
});
