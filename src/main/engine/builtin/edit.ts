import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolDefinition } from "../tools/contract.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { assertReadAndUnchanged, sha256, stampOf } from "./file-stamp.ts";
import {
  decodeText,
  detectLineEnding,
  encodeText,
  encodingName,
  isBinary,
  roundTrips,
  toCrlf,
  toLf,
} from "./text-codec.ts";

const DESCRIPTION = `Change part of an existing file by replacing an exact piece of its text.

Use it for targeted changes to a file you have read in this session: it finds old_string in the file and replaces it with new_string. To create a file, or to replace all of its content, use write.

old_string must match the file's text exactly, including whitespace and indentation; copy it from what read returned (without adding line numbers). It must be non-empty, differ from new_string, and occur exactly once, unless replace_all is true, which replaces every occurrence. If it occurs several times, add surrounding lines to make it unique. You may write line breaks as \\n even in a file with CRLF line endings: the file keeps its line endings and its encoding (UTF-8 with or without BOM, UTF-16, latin1).

The file must have been read in this session and not changed on disk since; otherwise the call fails and asks you to read it first. The change is written atomically.

Returns {path, replacements, diff}: how many occurrences were replaced and a unified diff of the change.`;

const schema = z.strictObject({
  path: z.string().min(1).describe("The existing file to change, relative to the workspace root."),
  old_string: z
    .string()
    .min(1)
    .describe("The exact text to replace, copied from the file. Must not be empty."),
  new_string: z.string().describe("The text to put in its place. Must differ from old_string."),
  replace_all: z
    .boolean()
    .default(false)
    .describe("Replace every occurrence of old_string instead of requiring exactly one."),
});

export interface EditData {
  path: string;
  replacements: number;
  diff: string;
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
    await runtime.fs.resolve(args.path, "read");
    const target = await runtime.fs.resolve(args.path, "write");
    if (!(await runtime.fs.stat(target))) {
      throw new ToolCallError(
        `File not found: ${target.display}. edit only changes existing files; to create ${target.display}, use write.`,
      );
    }
    const { bytes, stats: current } = await runtime.fs.readBytes(target);
    if (isBinary(bytes)) {
      throw new ToolCallError(
        `${target.display} is a binary file (${bytes.length} bytes); edit only changes text files.`,
        "binary_file",
      );
    }
    const previousSha256 = assertReadAndUnchanged(runtime.session, target, bytes, "edit");
    const decoded = decodeText(bytes);
    if (!roundTrips(bytes, decoded)) {
      throw new ToolCallError(
        `${target.display} is not cleanly ${encodingName(decoded.encoding)} (decoding and re-encoding it would change bytes you did not edit), so edit will not touch it. Rewrite it with write if you must change it.`,
      );
    }

    // Match and replace on LF text when the file's line breaks are uniform, so a CRLF file can be
    // edited with "\n" strings; the result is converted back to the file's own line endings.
    const endings = detectLineEnding(decoded.text);
    const normalise = endings === "crlf" || endings === "lf";
    const before = normalise ? toLf(decoded.text) : decoded.text;
    const oldString = normalise ? toLf(args.old_string) : args.old_string;
    const newString = normalise ? toLf(args.new_string) : args.new_string;
    if (oldString === newString) {
      throw new ToolCallError(
        "old_string and new_string differ only in line endings, which edit keeps as the file has them; the edit would change nothing.",
      );
    }

    const pieces = before.split(oldString);
    const matches = pieces.length - 1;
    if (matches === 0) {
      const mixed =
        endings === "mixed"
          ? " The file mixes LF and CRLF line endings, so line breaks in old_string must match it exactly."
          : "";
      throw new ToolCallError(
        `old_string was not found in ${target.display} (0 matches). Read the file again and copy the text exactly, including whitespace and indentation, without line numbers.${mixed}`,
        "no_match",
      );
    }
    if (matches > 1 && !args.replace_all) {
      throw new ToolCallError(
        `old_string occurs ${matches} times in ${target.display}. Add surrounding lines to old_string so it matches exactly one place, or set replace_all to true to replace all ${matches}.`,
        "ambiguous_match",
      );
    }
    const after = args.replace_all
      ? pieces.join(newString)
      : `${pieces[0] as string}${newString}${pieces.slice(1).join(oldString)}`;
    const text = endings === "crlf" ? toCrlf(after) : after;

    let encoded: Buffer;
    try {
      encoded = encodeText(text, decoded.encoding);
    } catch (err) {
      throw new ToolCallError(
        `${target.display} is a ${encodingName(decoded.encoding)} file and ${(err as Error).message}. Use only characters that encoding can hold in new_string.`,
      );
    }
    const diff = createTwoFilesPatch(target.display, target.display, before, after, undefined, undefined, {
      context: 3,
      headerOptions: FILE_HEADERS_ONLY,
    });
    runtime.signal.throwIfAborted();
    await runtime.checkpoint?.keep(target.absolute, {
      bytes,
      sha256: previousSha256,
      mode: current.mode & 0o7777,
      renamedOver: current, // writeAtomic renames the new content over the file
    });
    await runtime.fs.writeAtomic(target, encoded);
    const stats = await runtime.fs.stat(target);
    const stamp = stats ? stampOf(encoded, stats) : undefined;
    runtime.checkpoint?.changed(target.absolute, stamp?.sha256 ?? sha256(encoded));
    if (stamp) runtime.session.recordRead(target.absolute, stamp);
    return { path: target.display, replacements: args.replace_all ? matches : 1, diff };
  },
});

/** The edit tool; its plan names the file so permission rules judge the real path before it runs. */
export const editTool: ToolDefinition<z.output<typeof schema>, EditData> = {
  ...definition,
  plan: (args) => ({
    accesses: [
      { capability: "fs.read", path: args.path },
      { capability: "fs.write", path: args.path },
    ],
    unclear: [],
  }),
};
