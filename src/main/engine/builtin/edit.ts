import { z } from "zod";
import { refuseReadOnly, replacementFor } from "../capability/file-replacement.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { transferList } from "../offload/job-result.ts";
import { offload } from "../offload/offload.ts";
import type { ToolDefinition } from "../tools/contract.ts";
import { OUTPUT_LIMITS, truncateTextField } from "../tools/truncation.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { plannedFilePath } from "./planned-path.ts";
import { assertReadAndUnchanged, recordWritten } from "./file-stamp.ts";
import { encodingName } from "./text-codec.ts";
import { counted } from "../tools/counted.ts";

const DESCRIPTION = `Replace an exact piece of an existing file's text: old_string becomes new_string. To create a file or replace all of it, use write.

The file must have been read in this session and unchanged on disk since. old_string must match exactly, whitespace and indentation included (copy it from read, which adds no line numbers), and occur exactly once unless replace_all; if it occurs more often, add surrounding lines. \\n works in CRLF files: the file keeps its line endings and encoding.`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    path: z.string().min(1).describe("Relative to the workspace root."),
    old_string: z.string().min(1).describe("The exact text to replace."),
    new_string: z.string().describe("Its replacement; must differ from old_string."),
    replace_all: z.boolean().default(false).describe("Replace every occurrence."),
  });

export interface EditData {
  path: string;
  replacements: number;
  diff: string;
  /** Why `diff` is empty: the change was too large to diff usefully. */
  diff_omitted?: string;
}

const definition = defineBuiltin({
  id: "edit",
  description: DESCRIPTION,
  schema,
  requires: { fs: { read: ["{workspace}/**"], write: ["{workspace}/**"] } },
  readOnly: false,
  gated: true,
  kind: "edit",
  checkpoints: "reported",
  deriveApprovalKey: (args) => `edit:${args.path}`,
  async execute(args, runtime): Promise<EditData> {
    if (args.old_string === args.new_string) {
      throw new ToolCallError(
        "old_string and new_string are identical, so the edit would change nothing. Give the new text in new_string.",
      );
    }
    // The plan checked the file for reading (index 0) and writing (index 1).
    const target = plannedFilePath(runtime, 1, args.path);
    if (!(await runtime.fs.stat(target))) {
      throw new ToolCallError(
        `File not found: ${target.display}. edit only changes existing files; to create ${target.display}, use write.`,
      );
    }
    const { bytes, stats: current } = await runtime.fs.readBytes(target);
    await refuseReadOnly(target, current);
    const size = bytes.length;
    // Decoding, replacing, encoding and diffing cost time in proportion to the file (the diff
    // more): all of it happens on an offload worker, never on the event loop.
    const outcome = await offload(
      "edit.text",
      {
        bytes,
        display: target.display,
        oldString: args.old_string,
        newString: args.new_string,
        replaceAll: args.replace_all,
      },
      // A checkpoint keeps these bytes: then they are copied to the worker, not moved.
      runtime.checkpoint
        ? { signal: runtime.signal }
        : { signal: runtime.signal, transfer: transferList(bytes) },
    );
    if (outcome.kind === "binary") {
      throw new ToolCallError(
        `${target.display} is a binary file (${counted(size, "byte")}); edit only changes text files.`,
        "binary_file",
      );
    }
    const previousSha256 = assertReadAndUnchanged(
      runtime.session,
      target,
      { size, sha256: outcome.sha256 },
      "edit",
    );
    switch (outcome.kind) {
      case "unclean":
        throw new ToolCallError(
          `${target.display} is not cleanly ${encodingName(outcome.encoding)} (decoding and re-encoding it would change bytes you did not edit), so edit will not touch it. Rewrite it with write if you must change it.`,
        );
      case "same-text":
        throw new ToolCallError(
          "old_string and new_string differ only in line endings, which edit keeps as the file has them; the edit would change nothing.",
        );
      case "no-match": {
        const mixed = outcome.mixedEndings
          ? " The file mixes LF and CRLF line endings, so line breaks in old_string must match it exactly."
          : "";
        throw new ToolCallError(
          `old_string was not found in ${target.display} (0 matches).${outcome.hint ?? " Read the file again and copy the text exactly, including whitespace and indentation, without line numbers."}${mixed}`,
          "no_match",
        );
      }
      case "ambiguous":
        throw new ToolCallError(
          `old_string occurs ${outcome.matches} times in ${target.display}. Add surrounding lines to old_string so it matches exactly one place, or set replace_all to true to replace all ${outcome.matches}.`,
          "ambiguous_match",
        );
      case "unencodable":
        throw new ToolCallError(
          `${target.display} is a ${encodingName(outcome.encoding)} file and ${outcome.reason}. Use only characters that encoding can hold in new_string.`,
        );
    }
    runtime.signal.throwIfAborted();
    const how = await replacementFor(target.absolute, current);
    await runtime.checkpoint?.keep(target.absolute, {
      bytes,
      sha256: previousSha256,
      mode: current.mode & 0o7777,
      // A file renamed over is left as it is, so the checkpoint may keep it by a link; one
      // rewritten in place changes, so the checkpoint keeps a copy.
      ...(how === "rename" ? { renamedOver: current } : {}),
    });
    await runtime.fs.writeAtomic(target, outcome.encoded, { replace: how, unchangedSince: current });
    await recordWritten(runtime, target, { size: outcome.encoded.byteLength, sha256: outcome.newSha256 });
    return {
      path: target.display,
      replacements: outcome.replacements,
      diff: outcome.diff,
      ...(outcome.diffOmitted === undefined ? {} : { diff_omitted: outcome.diffOmitted }),
    };
  },
  // A long diff is cut like any other output: its head here, the whole of it in a sidecar file.
  truncate: (data) => truncateTextField(data, "diff", OUTPUT_LIMITS.readBytes),
});

/** The edit tool; its plan names the file so permission rules judge the real path before it runs. */
export const editTool: ToolDefinition<z.output<ReturnType<typeof schema>>, EditData> = {
  ...definition,
  plan: (args) => ({
    accesses: [
      { capability: "fs.read", path: args.path },
      { capability: "fs.write", path: args.path },
    ],
    unclear: [],
  }),
};
