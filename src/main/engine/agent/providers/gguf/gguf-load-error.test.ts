import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { chmod, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { InsufficientMemoryError } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelError } from "../../model-error.ts";
import { assertGgufFile, explainLoadFailure } from "./gguf-load-error.ts";

describe("assertGgufFile: a path that is no GGUF file is refused, saying what it is", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lathe-gguf-file-"));
    execFileSync("mkfifo", [path.join(dir, "pipe.gguf")]);
    await writeFile(path.join(dir, "empty.gguf"), "");
    await writeFile(path.join(dir, "locked.gguf"), "GGUF\x03\0\0\0");
    await chmod(path.join(dir, "locked.gguf"), 0o000);
  });
  afterAll(async () => {
    // Should a reader still wait on the pipe (the bug below), a writer end lets it go, so the
    // test process can exit.
    const writer = await open(path.join(dir, "pipe.gguf"), constants.O_RDWR | constants.O_NONBLOCK);
    await writer.close();
    await rm(dir, { recursive: true, force: true });
  });

  // A named pipe was opened and waited on for ever: `lathe run --model gguf:pipe.gguf` hung, and
  // not even SIGTERM ended it (the process waits for the blocked open before it exits).
  it.each([
    ["a named pipe", "pipe.gguf", /pipe\.gguf is not a regular file \(a named pipe\): name a \.gguf file/],
    ["a device", "/dev/zero", /^\/dev\/zero is not a regular file \(a device\)/],
    ["an empty file", "empty.gguf", /empty\.gguf is empty \(0 bytes\): its download or copy did not finish/],
  ])(
    "%s",
    async (_kind, name, message) => {
      const file = path.isAbsolute(name) ? name : path.join(dir, name);
      await expect(assertGgufFile(file)).rejects.toMatchObject({
        code: "model_unavailable",
        message: expect.stringMatching(message),
      });
    },
    5_000,
  );

  const root = process.getuid?.() === 0;
  if (root) console.log("skipping the unreadable-file case: root reads a file whatever its mode");
  it.skipIf(root)("an unreadable file (skipped as root, who reads it anyway)", async () => {
    await expect(assertGgufFile(path.join(dir, "locked.gguf"))).rejects.toMatchObject({
      code: "model_unavailable",
      message: expect.stringMatching(
        /may not read the GGUF file at .*locked\.gguf \(permission denied\): make it readable by this user, e\.g\. chmod a\+r/,
      ),
    });
  });
});

// A split model with a part not there was taken as ready (by `lathe doctor` too) and failed in
// llama.cpp with a bare ENOENT on a file the person never named.
describe("assertGgufFile: a split model needs all its parts", () => {
  it("refuses a set with a part missing, naming it, and takes the whole set", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-gguf-split-"));
    try {
      const part = (n: number) => path.join(dir, `big-0000${n}-of-00003.gguf`);
      const header = Buffer.concat([Buffer.from("GGUF\x03\0\0\0", "latin1"), Buffer.alloc(56)]);
      await writeFile(part(1), header);
      await writeFile(part(3), header);
      await expect(assertGgufFile(part(1))).rejects.toMatchObject({
        code: "model_unavailable",
        message: `${part(1)} is one part of a model split in 3, and part 2 of 3 is missing (big-00002-of-00003.gguf): put it beside the other parts.`,
      });
      await writeFile(part(2), header);
      await expect(assertGgufFile(part(1))).resolves.toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("explainLoadFailure", () => {
  const file = "/models/big.gguf";

  it("tells the user to free memory, shrink the context or pick a smaller quantisation", () => {
    const error = new InsufficientMemoryError("A context size of 131072 is too large for the available RAM");
    const explained = explainLoadFailure(error, file, 131072, []);
    expect(explained.code).toBe("model_unavailable");
    expect(explained.message).toBe(
      "Not enough memory to run /models/big.gguf (A context size of 131072 is too large for the available RAM): close other programs, lower the context size (now 131072 tokens), or pick a smaller quantisation of the model.",
    );
    expect(explained.cause).toBe(error);
  });

  it("recognises llama.cpp's allocation failure as a memory problem", () => {
    expect(explainLoadFailure(new Error("std::bad_alloc"), file, undefined, []).message).toMatch(
      /^Not enough memory to run/,
    );
  });

  it("quotes what llama.cpp logged, once per line", () => {
    const explained = explainLoadFailure(new Error("Failed to load model"), file, undefined, [
      "unknown model architecture: 'newarch'",
      "unknown model architecture: 'newarch'",
      "failed to load model",
    ]);
    expect(explained.message).toBe(
      "Cannot load the GGUF model at /models/big.gguf: Failed to load model. llama.cpp said: unknown model architecture: 'newarch' / failed to load model. The file may be truncated (download it again) or need a newer llama.cpp than the one bundled with node-llama-cpp.",
    );
  });

  it("names a file whose tensors run past its end as truncated, quoting llama.cpp", () => {
    const explained = explainLoadFailure(new Error("Failed to load model"), file, undefined, [
      "llama_model_load: error loading model: tensor 'token_embd.weight' data is not within the file bounds, model is corrupted or incomplete",
    ]);
    expect(explained.message).toMatch(
      /^\/models\/big\.gguf is truncated or damaged: its model data ends before the file does\. llama\.cpp said: .*not within the file bounds.* download the model again\.$/,
    );
  });

  it("passes a ModelError through unchanged", () => {
    const error = new ModelError("model_unavailable", "No GGUF file at /x.gguf");
    expect(explainLoadFailure(error, file, undefined, [])).toBe(error);
  });
});
