import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { transferList, WithTransfer } from "../offload/job-result.ts";
import { sha256 } from "./file-stamp.ts";
import {
  decodeText,
  detectLineEnding,
  encodeText,
  isBinary,
  roundTrips,
  crToLf,
  lfToCr,
  toCrlf,
  toLf,
  type TextEncoding,
} from "./text-codec.ts";
import { DIFF_MAX_CHANGED_LINES, DIFF_TIMEOUT_MS } from "./diff-limits.ts";
import { nearMiss } from "./edit-near-miss.ts";

interface EditInput {
  bytes: Uint8Array;
  display: string;
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

/** What editing a file's bytes came to; the tool turns each outcome into its result or error. */
type EditOutcome =
  | { kind: "binary" }
  | { kind: "unclean"; sha256: string; encoding: TextEncoding }
  | { kind: "same-text"; sha256: string }
  | { kind: "no-match"; sha256: string; mixedEndings: boolean; hint?: string }
  | { kind: "ambiguous"; sha256: string; matches: number }
  | { kind: "unencodable"; sha256: string; encoding: TextEncoding; reason: string }
  | {
      kind: "edited";
      /** Of the bytes before the edit (for the read-before-write check) and after it. */
      sha256: string;
      newSha256: string;
      encoded: Uint8Array;
      replacements: number;
      diff: string;
      /** Why `diff` is empty, when it was left out. */
      diffOmitted?: string;
    };

function newlines(text: string, from = 0, to = text.length): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** How many lines of the old text the replaced occurrences touch (each line counted once). */
function changedLines(pieces: readonly string[], oldString: string, replaced: number): number {
  const span = newlines(oldString);
  let line = 0;
  let lastCounted = -1;
  let changed = 0;
  for (let i = 0; i < replaced; i++) {
    line += newlines(pieces[i] as string);
    const last = line + span;
    changed += last - Math.max(line, lastCounted + 1) + 1;
    lastCounted = last;
    line += span;
  }
  return changed;
}

function unifiedDiff(
  display: string,
  before: string,
  after: string,
  changed: number,
): { diff: string; diffOmitted?: string } {
  if (changed > DIFF_MAX_CHANGED_LINES) {
    return {
      diff: "",
      diffOmitted: `The diff was left out: this edit changed ${changed} lines, more than the ${DIFF_MAX_CHANGED_LINES} a diff is made for. The file was written; read the parts you need to check.`,
    };
  }
  const diff = createTwoFilesPatch(display, display, before, after, undefined, undefined, {
    context: 3,
    headerOptions: FILE_HEADERS_ONLY,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (diff === undefined) {
    return {
      diff: "",
      diffOmitted: `The diff was left out: computing it took longer than ${DIFF_TIMEOUT_MS} ms. The file was written; read the parts you need to check.`,
    };
  }
  return { diff };
}

/**
 * Replace `oldString` in a file's bytes: decode them (keeping the encoding and, when uniform,
 * matching on LF text), replace one or every occurrence, encode the result the file's way, and
 * make a bounded unified diff. Pure work on bytes, so it runs on an offload worker for large
 * files; the edit tool does the I/O and the checks that need the session around it.
 */
export function editText(input: EditInput): EditOutcome | WithTransfer<EditOutcome> {
  const { bytes } = input;
  if (isBinary(bytes)) return { kind: "binary" };
  const digest = sha256(bytes);
  const decoded = decodeText(bytes);
  if (!roundTrips(bytes, decoded)) return { kind: "unclean", sha256: digest, encoding: decoded.encoding };

  // Match and replace on LF text when the file's line breaks are uniform, so a CRLF (or CR) file
  // can be edited with "\n" strings; the result is converted back to the file's own line endings.
  const endings = detectLineEnding(decoded.text);
  const asLf = endings === "cr" ? crToLf : endings === "crlf" || endings === "lf" ? toLf : undefined;
  const before = asLf ? asLf(decoded.text) : decoded.text;
  const oldString = asLf ? asLf(input.oldString) : input.oldString;
  const newString = asLf ? asLf(input.newString) : input.newString;
  if (oldString === newString) return { kind: "same-text", sha256: digest };

  const pieces = before.split(oldString);
  const matches = pieces.length - 1;
  if (matches === 0) {
    const hint = nearMiss(before, oldString, endings === "mixed");
    return { kind: "no-match", sha256: digest, mixedEndings: endings === "mixed", ...(hint ? { hint } : {}) };
  }
  if (matches > 1 && !input.replaceAll) return { kind: "ambiguous", sha256: digest, matches };
  const after = input.replaceAll
    ? pieces.join(newString)
    : `${pieces[0] as string}${newString}${pieces.slice(1).join(oldString)}`;
  const replacements = input.replaceAll ? matches : 1;

  let encoded: Buffer;
  try {
    const written = endings === "crlf" ? toCrlf(after) : endings === "cr" ? lfToCr(after) : after;
    encoded = encodeText(written, decoded.encoding);
  } catch (err) {
    return {
      kind: "unencodable",
      sha256: digest,
      encoding: decoded.encoding,
      reason: (err as Error).message,
    };
  }
  const outcome: EditOutcome = {
    kind: "edited",
    sha256: digest,
    newSha256: sha256(encoded),
    encoded,
    replacements,
    ...unifiedDiff(input.display, before, after, changedLines(pieces, oldString, replacements)),
  };
  return new WithTransfer(outcome, transferList(encoded));
}
