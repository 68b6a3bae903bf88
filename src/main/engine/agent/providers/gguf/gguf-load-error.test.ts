import { InsufficientMemoryError } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { ModelError } from "../../model-error.ts";
import { explainLoadFailure } from "./gguf-load-error.ts";

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

  it("passes a ModelError through unchanged", () => {
    const error = new ModelError("model_unavailable", "No GGUF file at /x.gguf");
    expect(explainLoadFailure(error, file, undefined, [])).toBe(error);
  });
});
