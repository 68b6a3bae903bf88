import type { Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { ModelError } from "../../model-error.ts";
import { errorMessage } from "../../../errors/error-message.ts";

const MAGIC = "GGUF";

/**
 * Checks that `file` exists and starts with the GGUF magic bytes before llama.cpp sees it, so
 * the two commonest mistakes get a plain message. Throws ModelError (`model_unavailable`).
 */
export async function assertGgufFile(file: string): Promise<void> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ModelError(
        "model_unavailable",
        `No GGUF file at ${file}: check the path after "gguf:" (an absolute path, or relative to the current folder).`,
        { cause: error },
      );
    }
    throw new ModelError(
      "model_unavailable",
      `Cannot open the GGUF file at ${file}: ${(error as Error).message}.`,
      {
        cause: error,
      },
    );
  }
  if (info.isDirectory()) {
    throw new ModelError(
      "model_unavailable",
      `${file} is a folder: name the .gguf file inside it after "gguf:".`,
    );
  }
  // A named pipe would be waited on for ever (and the process could not even exit), a device
  // read for ever: only a regular file is opened.
  if (!info.isFile()) {
    throw new ModelError(
      "model_unavailable",
      `${file} is not a regular file (${kindOf(info)}): name a .gguf file after "gguf:".`,
    );
  }
  if (info.size === 0) {
    throw new ModelError(
      "model_unavailable",
      `${file} is empty (0 bytes): its download or copy did not finish. Download the model again.`,
    );
  }
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const denied = code === "EACCES" || code === "EPERM";
    throw new ModelError(
      "model_unavailable",
      denied
        ? `Lathe may not read the GGUF file at ${file} (permission denied): make it readable by this user, e.g. chmod a+r "${file}".`
        : `Cannot open the GGUF file at ${file}: ${errorMessage(error)}.`,
      { cause: error },
    );
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    const magic = buffer.subarray(0, bytesRead).toString("latin1");
    if (magic !== MAGIC) {
      throw new ModelError(
        "model_unavailable",
        `${file} is not a GGUF model (it does not start with "GGUF"): pick a .gguf file, e.g. a quantised model from Hugging Face.`,
      );
    }
  } finally {
    await handle.close();
  }
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return "a named pipe";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a file";
}

function isMemoryFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === "InsufficientMemoryError" ||
    /bad_alloc|out of memory|too large for the available/i.test(error.message)
  );
}

/**
 * A failure to load a model or create its context as a ModelError that says what to do.
 * `logs` are llama.cpp's last warnings, which often hold the real reason.
 */
export function explainLoadFailure(
  error: unknown,
  file: string,
  contextSize: number | undefined,
  logs: string[],
): ModelError {
  if (ModelError.isModelError(error)) return error;
  const message = errorMessage(error);
  if (isMemoryFailure(error)) {
    const context = contextSize ? ` lower the context size (now ${contextSize} tokens),` : "";
    return new ModelError(
      "model_unavailable",
      `Not enough memory to run ${file} (${message}): close other programs,${context} or pick a smaller quantisation of the model.`,
      { cause: error },
    );
  }
  const said = [...new Set(logs)].slice(0, 3); // the first lines hold the cause, the rest repeat it
  const detail = said.length > 0 ? ` llama.cpp said: ${said.join(" / ")}.` : "";
  return new ModelError(
    "model_unavailable",
    `Cannot load the GGUF model at ${file}: ${message}.${detail} The file may be truncated (download it again) or need a newer llama.cpp than the one bundled with node-llama-cpp.`,
    { cause: error },
  );
}
