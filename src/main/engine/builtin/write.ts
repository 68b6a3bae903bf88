import type { Stats } from "node:fs";
import { z } from "zod";
import { refuseReadOnly, replacementFor, type Replacement } from "../capability/file-replacement.ts";
import type { ResolvedPath } from "../capability/fs-capability.ts";
import type { KeptContent } from "../checkpoints/file-checkpoint.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolDefinition } from "../tools/contract.ts";
import { transferList } from "../offload/job-result.ts";
import { offload } from "../offload/offload.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { plannedFilePath } from "./planned-path.ts";
import { assertReadAndUnchanged, recordWritten } from "./file-stamp.ts";
import { encodeTextInSlices } from "./sliced-encoding.ts";
import { encodingName, type TextEncoding } from "./text-codec.ts";
import { inspectExisting } from "./write-inspect.ts";
import { counted } from "../tools/counted.ts";

/** Existing files this large or larger are hashed and decoded on an offload worker. */
const INSPECT_INLINE_BYTES = 256 * 1024;

const DESCRIPTION = `Create a file, or replace its entire content; for a partial change prefer edit. Missing parent folders are created. content is written exactly as given, line endings included; an existing file keeps its encoding.

Replacing an existing file needs a read of it in this session, unchanged on disk since; a new file needs no read.`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    path: z.string().min(1).describe("Relative to the workspace root."),
    content: z.string().describe("The file's complete new text."),
  });

export interface WriteData {
  path: string;
  bytes: number;
}

/** A parent of the target is a file: say so instead of surfacing ENOTDIR/EEXIST. */
function rethrowNotAFolder(err: unknown, target: ResolvedPath): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOTDIR" || code === "EEXIST") {
    throw new ToolCallError(
      `Cannot write ${target.display}: part of its folder path is an existing file, not a folder. Choose another path.`,
      "not_a_folder",
      { cause: err },
    );
  }
  throw err;
}

const definition = defineBuiltin({
  id: "write",
  description: DESCRIPTION,
  schema,
  requires: { fs: { write: ["{workspace}/**"] } },
  readOnly: false,
  gated: true,
  kind: "edit",
  checkpoints: "reported",
  deriveApprovalKey: (args) => `write:${args.path}`,
  async execute(args, runtime): Promise<WriteData> {
    const target = plannedFilePath(runtime, 0, args.path);
    const existing = await runtime.fs.stat(target);
    if (existing?.isDirectory()) {
      throw new ToolCallError(`${target.display} is a directory; give the path of a file to write.`);
    }
    let encoding: TextEncoding = "utf8";
    let previous: KeptContent | null = null;
    let how: Replacement = "rename";
    let read: Stats | undefined;
    if (existing) {
      const { bytes, stats } = await runtime.fs.readBytes(target);
      await refuseReadOnly(target, stats);
      read = stats;
      const size = bytes.length;
      // Hashing and decoding a large file happen on an offload worker.
      const file =
        size >= INSPECT_INLINE_BYTES
          ? await offload(
              "write.inspect",
              { bytes },
              // A checkpoint keeps these bytes: then they are copied to the worker, not moved.
              runtime.checkpoint
                ? { signal: runtime.signal }
                : { signal: runtime.signal, transfer: transferList(bytes) },
            )
          : inspectExisting({ bytes });
      if (file.kind === "binary") {
        throw new ToolCallError(
          `${target.display} is an existing binary file (${counted(size, "byte")}) that read cannot show, so write will not replace it. Write to a new path instead.`,
          "binary_file",
        );
      }
      const sha256 = assertReadAndUnchanged(runtime.session, target, { size, sha256: file.sha256 }, "write");
      encoding = file.encoding;
      how = await replacementFor(target.absolute, stats);
      // A file renamed over is left as it is, so the checkpoint may keep it by a link; one
      // rewritten in place changes, so the checkpoint keeps a copy.
      previous = {
        bytes,
        sha256,
        mode: stats.mode & 0o7777,
        ...(how === "rename" ? { renamedOver: stats } : {}),
      };
    }
    let encoded: { encoded: Buffer; sha256: string };
    try {
      // The content is already here: it is encoded and hashed a slice per turn of the loop.
      encoded = await encodeTextInSlices(args.content, encoding, runtime.signal);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      throw new ToolCallError(
        `${target.display} is a ${encodingName(encoding)} file and ${err.message}. Use only characters that encoding can hold, or write to a new file (new files are UTF-8).`,
      );
    }
    runtime.signal.throwIfAborted();
    await runtime.checkpoint?.keep(target.absolute, previous);
    await runtime.fs
      .writeAtomic(target, encoded.encoded, { replace: how, ...(read ? { unchangedSince: read } : {}) })
      .catch((err: unknown) => rethrowNotAFolder(err, target));
    await recordWritten(runtime, target, { size: encoded.encoded.length, sha256: encoded.sha256 });
    return { path: target.display, bytes: encoded.encoded.length };
  },
});

/** The write tool; its plan names the file so permission rules judge the real path before it runs. */
export const writeTool: ToolDefinition<z.output<ReturnType<typeof schema>>, WriteData> = {
  ...definition,
  plan: (args) => ({ accesses: [{ capability: "fs.write", path: args.path }], unclear: [] }),
};
