import { copyFile, lstat, mkdir, open, readdir, realpath, stat, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ModelError } from "../model-error.ts";
import { errorMessage } from "../../errors/error-message.ts";
import { ggufHeaderMetadata, ggufTruncation } from "../providers/gguf/gguf-load-error.ts";
import { loadNodeLlamaCpp } from "../providers/gguf/node-llama-cpp.ts";
import {
  groupSplitSets,
  missingPartsProblem,
  partsOfSet,
  unnamedPartProblem,
  type GgufModelFiles,
} from "./gguf-split-set.ts";

/** A GGUF file the picker offers as `gguf:<path>`. */
export interface GgufFile {
  /** Its path as the model spec names it (inside the models folder). */
  path: string;
  /** The file name, for the picker. */
  name: string;
  bytes: number;
  /** The context length its metadata declares, when it could be read. */
  contextTokens?: number;
  /** The model's own name from its metadata. */
  title?: string;
  /** Why its header could not be read (it will not load either). */
  problem?: string;
}

/** The folder GGUF files are picked from: `$LATHE_HOME/models`. */
export function ggufFolder(latheHome: string): string {
  return path.join(latheHome, "models");
}

const MAGIC = "GGUF";
/** The format versions in use; node-llama-cpp does not finish reading a file that claims another. */
const VERSIONS = new Set([2, 3]);
/** A header that takes longer than this to read is reported, not waited for. */
const HEADER_TIMEOUT_MS = 10_000;
/** How deep below the folder files are looked for (a download often sits in a folder of its own). */
const DEPTH = 2;

async function findFiles(dir: string, depth: number): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const found: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.name.toLowerCase().endsWith(".gguf") && (entry.isFile() || entry.isSymbolicLink())) {
      found.push(full);
    } else if (entry.isDirectory() && depth > 1) {
      found.push(...(await findFiles(full, depth - 1)));
    }
  }
  return found.sort((a, b) => a.localeCompare(b));
}

/** Why the file's first bytes are not a GGUF header Lathe can read, or undefined when they are. */
async function headerProblem(file: string): Promise<string | undefined> {
  const handle = await open(file, "r");
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(8), 0, 8, 0);
    if (bytesRead < 8 || buffer.toString("latin1", 0, 4) !== MAGIC)
      return "it does not start with the GGUF header";
    const version = buffer.readUInt32LE(4);
    return VERSIONS.has(version) ? undefined : `its GGUF version ${version} is not one Lathe reads (2 or 3)`;
  } finally {
    await handle.close();
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The context length a GGUF file's model was trained for, from its header; undefined when unreadable. */
export async function ggufTrainedContext(file: string): Promise<number | undefined> {
  return (await headerOf(file)).contextTokens;
}

/** The model's context length and name, from the file's header (node-llama-cpp reads it; no weights load). */
async function headerOf(file: string): Promise<Pick<GgufFile, "contextTokens" | "title" | "problem">> {
  try {
    const problem = await headerProblem(file);
    if (problem !== undefined) return { problem };
    const { readGgufFileInfo } = await loadNodeLlamaCpp();
    const info = await withTimeout(
      readGgufFileInfo(file, { readTensorInfo: false }),
      HEADER_TIMEOUT_MS,
      "reading its header",
    );
    // A cut-off copy (an unfinished download) reads as a header of garbage: it will not load.
    const cutOff = await ggufTruncation(file);
    if (cutOff !== undefined) return { problem: "it is truncated: its download or copy did not finish" };
    const unnamed = unnamedPartProblem(file, info.metadata);
    if (unnamed !== undefined) return { problem: unnamed };
    const metadata = info.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
    const general = metadata["general"];
    const architecture = typeof general?.["architecture"] === "string" ? general["architecture"] : undefined;
    const context = architecture ? metadata[architecture]?.["context_length"] : undefined;
    const title = typeof general?.["name"] === "string" ? general["name"] : undefined;
    return {
      ...(typeof context === "number" && context > 0 ? { contextTokens: context } : {}),
      ...(title ? { title } : {}),
    };
  } catch (err) {
    return { problem: `its header could not be read: ${errorMessage(err)}` };
  }
}

/** One file's entry: its size and what its header says, or why it cannot be used. */
async function ggufFileEntry(file: string): Promise<GgufFile> {
  const name = path.basename(file);
  try {
    const info = await stat(file);
    // A link to a named pipe would be waited on for ever, a device read for ever.
    if (!info.isFile()) return { path: file, name, bytes: 0, problem: "it is not a regular file" };
    return { path: file, name, bytes: info.size, ...(await headerOf(file)) };
  } catch (err) {
    return { path: file, name, bytes: 0, problem: `it cannot be read: ${(err as Error).message}` };
  }
}

/** Why a later part of a split model cannot be read, or undefined when it starts as a GGUF file should. */
async function partProblem(file: string): Promise<string | undefined> {
  try {
    // A link to a named pipe would be waited on for ever, a device read for ever.
    if (!(await stat(file)).isFile()) return "it is not a regular file";
    return await headerProblem(file);
  } catch (err) {
    return `it cannot be read: ${errorMessage(err)}`;
  }
}

/**
 * A split model's entry, named by its set and picked by its first part: its size is all its
 * parts', what its header says is the first part's (which holds the metadata); a part that is
 * not there, or cannot be read, is its problem.
 */
async function splitSetEntry(set: Extract<GgufModelFiles, { kind: "split" }>): Promise<GgufFile> {
  const base = { path: set.file, name: set.name };
  const bytes = async () => {
    const sizes = await Promise.all(set.present.map(async (p) => (await stat(p)).size));
    return sizes.reduce((sum, size) => sum + size, 0);
  };
  if (set.missing.length > 0) {
    return {
      ...base,
      bytes: await bytes().catch(() => 0),
      problem: missingPartsProblem(set.missing, set.parts),
    };
  }
  for (const [index, part] of set.present.entries()) {
    // The later parts hold tensors only: their header is read with the first part's.
    const problem = part === set.file ? undefined : await partProblem(part);
    if (problem !== undefined) {
      return { ...base, bytes: 0, problem: `part ${index + 1} of ${set.parts} cannot be used: ${problem}` };
    }
  }
  const first = await ggufFileEntry(set.file);
  return {
    ...first,
    ...base,
    bytes: first.problem === undefined ? await bytes() : first.bytes,
    ...(first.problem !== undefined
      ? { problem: `part 1 of ${set.parts} cannot be used: ${first.problem}` }
      : {}),
  };
}

/**
 * Every model in the models folder (and folders below it), with what its header says: each
 * `.gguf` file, except that the parts of a split model are one entry, picked by its first part.
 */
export async function listGgufFiles(latheHome: string): Promise<GgufFile[]> {
  const models = groupSplitSets(await findFiles(ggufFolder(latheHome), DEPTH));
  return Promise.all(
    models.map((model) => (model.kind === "whole" ? ggufFileEntry(model.file) : splitSetEntry(model))),
  );
}

function expandHome(file: string): string {
  return file === "~" || file.startsWith("~/") ? path.join(os.homedir(), file.slice(1)) : file;
}

/**
 * Add a GGUF file to the models folder so the picker offers it: a link to it (a copy where links
 * cannot be made). Refused, with what to do, when the path is not an absolute path to a readable
 * GGUF file or another file of that name is there already. Resolves to the path in the folder.
 */
export async function addGgufFile(latheHome: string, file: string): Promise<string> {
  const given = expandHome(file.trim());
  if (!path.isAbsolute(given)) {
    throw new ModelError(
      "model_config",
      `"${file}" is not an absolute path: give the whole path to the .gguf file.`,
    );
  }
  let source: string;
  try {
    source = await realpath(given);
    if (!(await stat(source)).isFile()) throw new Error("it is not a file");
  } catch (err) {
    const reason =
      (err as NodeJS.ErrnoException).code === "ENOENT" ? "it does not exist" : (err as Error).message;
    throw new ModelError("model_config", `${given} cannot be added: ${reason}.`, { cause: err });
  }
  // The name the person gave, or else the file's own: the Hugging Face cache keeps a model as a
  // blob named by its hash, reached through a link named model.gguf.
  const name = [given, source].map((p) => path.basename(p)).find((n) => n.toLowerCase().endsWith(".gguf"));
  // One part of a split model by a name that does not say so (a Hugging Face cache blob): it
  // would be listed and then fail to load.
  const unnamed =
    partsOfSet(given) === undefined ? unnamedPartProblem(given, await ggufHeaderMetadata(source)) : undefined;
  if (unnamed !== undefined) {
    throw new ModelError(
      "model_config",
      `${given} cannot be added by this name: ${unnamed}; then add it again.`,
    );
  }
  const problem = name !== undefined ? await headerProblem(source) : "its name does not end in .gguf";
  if (problem !== undefined) {
    throw new ModelError(
      "model_config",
      `${given} is not a GGUF model file Lathe can run: ${problem}. Convert or download the model in GGUF format.`,
    );
  }
  const folder = ggufFolder(latheHome);
  // Owner-only, as the other folders Lathe makes in its home (one the person made keeps its mode).
  await mkdir(folder, { recursive: true, mode: 0o700 });
  // A split model is read from all its parts, beside each other under their own names.
  const parts = partsOfSet(given);
  if (parts === undefined) return linkInto(folder, source, name as string);
  const sources = await Promise.all(parts.map((p) => realpath(p.file).catch(() => undefined)));
  const missing = parts.filter((_, i) => sources[i] === undefined);
  if (missing.length > 0) {
    throw new ModelError(
      "model_config",
      `${given} is one part of a model split in ${parts.length}, and ${missingPartsProblem(missing, parts.length)}; then add it again.`,
    );
  }
  for (const [i, part] of parts.entries()) {
    const partSource = sources[i] as string;
    const partProblem = await headerProblem(partSource);
    if (partProblem !== undefined) {
      throw new ModelError(
        "model_config",
        `${part.file} (part ${part.part} of ${parts.length}) is not a GGUF file Lathe can run: ${partProblem}. Download that part again.`,
      );
    }
  }
  const targets: string[] = [];
  for (const [i, part] of parts.entries()) {
    targets.push(await linkInto(folder, sources[i] as string, path.basename(part.file)));
  }
  return targets[0] as string;
}

/**
 * A link named `name` in the models folder to `source` (a copy where links cannot be made); the
 * one already there when it names `source`. Refused when another file holds the name.
 */
async function linkInto(folder: string, source: string, name: string): Promise<string> {
  const target = path.join(folder, name);
  const existing = await lstat(target).catch(() => undefined);
  if (existing) {
    if ((await realpath(target).catch(() => undefined)) === source) return target;
    throw new ModelError(
      "model_config",
      `${target} already holds another file named ${name}: rename one of them, then add it again.`,
    );
  }
  try {
    await symlink(source, target, "file");
  } catch {
    // Windows without the right to make links: a copy works everywhere.
    await copyFile(source, target);
  }
  return target;
}
