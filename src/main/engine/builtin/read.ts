import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { transferList } from "../offload/job-result.ts";
import { offload } from "../offload/offload.ts";
import type { ToolDefinition, Truncation } from "../tools/contract.ts";
import {
  isSelfTruncated,
  OUTPUT_LIMITS,
  selfTruncated,
  type LeftOut,
  type SelfTruncated,
} from "../tools/truncation.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { plannedPath } from "./planned-path.ts";
import { readHead, readText } from "./read-text.ts";
import { countLines, lineBreakOf } from "./text-codec.ts";
import { counted } from "../tools/counted.ts";

const DESCRIPTION = `Read a text file and return its exact text (no line numbers added).

Read a file before you change it: write and edit refuse a file this session has not read, or one changed on disk since. Also reads the output_path of a truncated result, and the files a skill mentions (in its folder).

For a large file pass offset and limit. Results over 200 KB are cut at a whole line with truncated: true (a single longer line is cut inside, saying so); continue at offset = end_line + 1. Lines end at \\n (in a file whose only line breaks are lone \\r, at \\r). Binary files, directories and files over 100 MB are refused (search those with grep). UTF-8, UTF-16 and latin1 are decoded; a byte that is not UTF-8 in a UTF-8 file shows as one private-use character U+EF80 to U+EFFF, to copy as it is into old_string.`;

/** Files this large or larger are decoded on an offload worker, smaller ones in place. */
const READ_INLINE_BYTES = 256 * 1024;

/** Files larger than this are refused rather than loaded whole into memory. */
const MAX_READ_FILE_BYTES = 100 * 1024 * 1024;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    path: z
      .string()
      .min(1)
      .describe(
        "Relative to the workspace root, or a truncated result's output_path, or a file in a skill's folder.",
      ),
    offset: z.number().int().min(1).optional().describe("First line to read, 1-based (default 1)."),
    limit: z.number().int().min(1).optional().describe("How many lines (default: to the end)."),
  });

export interface ReadData {
  path: string;
  content: string;
  start_line: number;
  end_line: number;
  total_lines: number;
}

function formatBytes(n: number): string {
  if (n < 1024) return counted(n, "byte");
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB (${n} bytes)`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB (${n} bytes)`;
}

/** Keep the head of an oversized read on a whole line; the sidecar holds the whole range. */
function truncateRead(
  data: ReadData | SelfTruncated<ReadData>,
): Truncation<ReadData | SelfTruncated<ReadData>> | undefined {
  if (isSelfTruncated(data)) return undefined;
  if (Buffer.byteLength(data.content, "utf8") <= OUTPUT_LIMITS.readBytes) return undefined;
  // Lone CRs end the lines of a file whose only line breaks they are; in one line of another
  // file they are characters, and then the range's line count says so.
  const lines = data.end_line - data.start_line + 1;
  const eol = lineBreakOf(data.content) === "\r" && countLines(data.content, "\r") === lines ? "\r" : "\n";
  const { content, endLine, leftOut } = readHead(data.content, data.start_line, OUTPUT_LIMITS.readBytes, eol);
  // Over the cap by a last line break alone: the head is all of it, nothing to cut.
  if (content === data.content) return undefined;
  return {
    data: { ...data, content, end_line: endLine },
    full: data.content,
    leftOut: inFile(leftOut, data.path, data.start_line, endLine),
  };
}

/** What a cut read leaves out, as lines of the file it read (see FileLines). */
function inFile(leftOut: LeftOut, path: string, firstLine: number, endLine: number): LeftOut {
  return leftOut.kind === "text" ? { ...leftOut, file: { path, firstLine, next: endLine + 1 } } : leftOut;
}

const definition = defineBuiltin({
  id: "read",
  description: DESCRIPTION,
  schema,
  // A global skill's folder is in $LATHE_HOME (the rest of which no tool may read): the files its
  // SKILL.md mentions are read from there.
  requires: { fs: { read: ["{workspace}/**", "{session}/**", "{user-data}/skills/**"] } },
  readOnly: true,
  gated: false,
  kind: "read",
  deriveApprovalKey: (args) => `read:${args.path}`,
  truncate: truncateRead,
  async execute(args, runtime): Promise<ReadData | SelfTruncated<ReadData>> {
    const target = plannedPath(runtime, 0, args.path);
    const info = await runtime.fs.stat(target);
    if (info?.isFile() && info.size > MAX_READ_FILE_BYTES) {
      throw new ToolCallError(
        `${target.display} is ${formatBytes(info.size)}, over read's ${formatBytes(MAX_READ_FILE_BYTES)} limit. Search it with grep instead.`,
      );
    }
    const { bytes, stats } = await runtime.fs.readBytes(target);
    const size = bytes.length;
    // Small files are decoded here; a large one is decoded, counted, hashed and (past the output
    // limit) written to its sidecar on an offload worker, so only its head reaches this thread.
    const large = size >= READ_INLINE_BYTES;
    // A sidecar that cannot be made here is left to the pipeline's own truncation, which tries
    // again and reports the failure as the runtime's (the model still gets the head).
    const sidecarPath = large
      ? await runtime.session.newSidecarPath("read").catch(() => undefined)
      : undefined;
    const input = {
      bytes,
      ...(args.offset === undefined ? {} : { offset: args.offset }),
      ...(args.limit === undefined ? {} : { limit: args.limit }),
      headBytes: OUTPUT_LIMITS.readBytes,
      ...(sidecarPath === undefined ? {} : { sidecarPath }),
    };
    const outcome = large
      ? await offload("read.text", input, { signal: runtime.signal, transfer: transferList(bytes) })
      : readText(input);
    if (outcome.kind === "binary") {
      throw new ToolCallError(
        `${target.display} is a binary file (${formatBytes(size)}, it contains NUL bytes); read only returns text. Do not try to read or edit it as text; to find text in it, give it to grep as path (grep searches a file it is given as text).`,
        "binary_file",
      );
    }
    if (outcome.kind === "past-end") {
      const total = outcome.totalLines;
      throw new ToolCallError(
        `offset ${args.offset} is past the end of ${target.display}, which has ${total} line${total === 1 ? "" : "s"}. Use an offset from 1 to ${Math.max(total, 1)}.`,
      );
    }
    runtime.session.recordRead(target.absolute, { size, mtimeMs: stats.mtimeMs, sha256: outcome.sha256 });
    const data: ReadData = {
      path: target.display,
      content: outcome.content,
      start_line: outcome.startLine,
      end_line: outcome.endLine,
      total_lines: outcome.totalLines,
    };
    return outcome.cut && sidecarPath !== undefined
      ? selfTruncated(
          data,
          sidecarPath,
          outcome.leftOut && inFile(outcome.leftOut, data.path, data.start_line, data.end_line),
        )
      : data;
  },
});

/** The read tool; its plan names the file so permission rules judge the real path before it runs. */
export const readTool: ToolDefinition<
  z.output<ReturnType<typeof schema>>,
  ReadData | SelfTruncated<ReadData>
> = {
  ...definition,
  plan: (args) => ({ accesses: [{ capability: "fs.read", path: args.path }], unclear: [] }),
};
