import type { Stats } from "node:fs";
import type { Llama } from "node-llama-cpp";
import { open, stat } from "node:fs/promises";
import { ModelError } from "../../model-error.ts";
import { errorMessage } from "../../../errors/error-message.ts";
import { loadNodeLlamaCpp } from "./node-llama-cpp.ts";
import { missingPartsProblem, partsOfSet, unnamedPartProblem } from "../../models/gguf-split-set.ts";

const MAGIC = "GGUF";
/** The magic, the format version and the two counts: what every GGUF file starts with. */
const HEADER_BYTES = 24;

/** The message for a file cut off before its end (an unfinished download or copy). */
function truncated(file: string, bytes: number, needed: number, what: string): string {
  return `${file} is truncated, not a complete GGUF file: it has ${bytes.toLocaleString("en-US")} bytes, fewer than the ${needed.toLocaleString("en-US")} ${what}. Its download or copy did not finish: download the model again.`;
}

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
        `No GGUF file at ${file}: check the path after "gguf:" (an absolute path; a relative one is read against the current folder, or in a settings file's defaultModel or an agent manifest's model against that file's folder).`,
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
  // A split model is loaded from all its parts: one not there fails the load with llama.cpp's words.
  const parts = partsOfSet(file);
  if (parts !== undefined) {
    const present = await Promise.all(
      parts.map((p) =>
        stat(p.file).then(
          () => true,
          () => false,
        ),
      ),
    );
    const missing = parts.filter((_, i) => !present[i]);
    if (missing.length > 0) {
      throw new ModelError(
        "model_unavailable",
        `${file} is one part of a model split in ${parts.length}, and ${missingPartsProblem(missing, parts.length)}.`,
      );
    }
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
    if (info.size < HEADER_BYTES) {
      throw new ModelError(
        "model_unavailable",
        truncated(file, info.size, HEADER_BYTES, "every GGUF header takes"),
      );
    }
  } finally {
    await handle.close();
  }
  // One part of a split model by another name: llama.cpp would fail on the name, and a runtime
  // that has failed a load may never finish disposing of itself (the app could not quit).
  const unnamed = unnamedPartProblem(file, await ggufHeaderMetadata(file));
  if (unnamed !== undefined) {
    throw new ModelError("model_unavailable", `${file} cannot be run by this name: ${unnamed}.`);
  }
}

/** The metadata in `file`'s header, or undefined when it cannot be read (the load explains that). */
export async function ggufHeaderMetadata(file: string): Promise<unknown> {
  try {
    const { readGgufFileInfo } = await loadNodeLlamaCpp();
    return (await readGgufFileInfo(file, { readTensorInfo: false, logWarnings: false })).metadata;
  } catch {
    return undefined; // no verdict: the load failure is explained as it was
  }
}

/**
 * Why `file` is cut off, checked before llama.cpp is asked to load it: its header declares
 * metadata and tensor descriptions that run past its end (node-llama-cpp reads such a header
 * without complaint and then fails on what is missing), or tensors that do. Undefined when the
 * file is as long as it says, or its header cannot be read at all. Without `llama` (the
 * runtime's own instance, which measures the tensors) a file counts as cut off only when it
 * ends before its last tensor starts.
 */
export async function ggufTruncation(file: string, llama?: Llama): Promise<string | undefined> {
  try {
    const [{ readGgufFileInfo, GgufInsights }, info] = await Promise.all([loadNodeLlamaCpp(), stat(file)]);
    const header = await readGgufFileInfo(file, { readTensorInfo: true, logWarnings: false });
    const end = header.infoEndOffset; // where the header (metadata and tensor list) ends
    if (end === undefined) return undefined;
    if (end > info.size) return truncated(file, info.size, end, "its header takes");
    // A model split into parts is read whole: its tensors are not all in this file.
    if (header.splicedParts > 1) return undefined;
    if (llama === undefined) {
      // Without the runtime's llama the tensors' size is not asked (node-llama-cpp would start
      // another llama for it, which takes llama.cpp's log, process-wide, and prints its warnings
      // on stdout). Where each tensor starts is in the header: a file that ends before the last
      // one starts is cut off (most unfinished downloads), whatever the tensors' types.
      const lastStart = (header.tensorInfo ?? []).reduce(
        (last, t) => Math.max(last, Number(t.fileOffset)),
        0,
      );
      return lastStart >= info.size
        ? truncated(file, info.size, lastStart + 1, "its tensors take at the least")
        : undefined;
    }
    const needed = end + (await GgufInsights.from(header, llama)).modelSize;
    return needed > info.size ? truncated(file, info.size, needed, "its header and tensors take") : undefined;
  } catch {
    return undefined; // no verdict: the load failure is explained as it was
  }
}

/** llama.cpp's words for a file whose tensors run past its end. */
const CUT_OFF = /not within the file bounds|corrupted or incomplete/i;

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
  if (said.some((line) => CUT_OFF.test(line))) {
    return new ModelError(
      "model_unavailable",
      `${file} is truncated or damaged: its model data ends before the file does.${detail} Its download or copy did not finish: download the model again.`,
      { cause: error },
    );
  }
  return new ModelError(
    "model_unavailable",
    `Cannot load the GGUF model at ${file}: ${message}.${detail} The file may be truncated (download it again) or need a newer llama.cpp than the one bundled with node-llama-cpp.`,
    { cause: error },
  );
}
