import type { Envelope } from "../../shared/envelope-schema.ts";

/**
 * What a cut result leaves out, in the words the model read (`metadata.left_out`): how much, and
 * where all of it is (how the model reads the rest, `metadata.read_rest`, is not for the person). For an envelope recorded before that note was kept, that it was cut and
 * where the whole output is. Undefined for a result that was not cut.
 */
export function cutNote(envelope: Envelope | undefined): string | undefined {
  if (envelope === undefined) return undefined;
  const { left_out: leftOut, truncated, output_path: outputPath } = envelope.metadata;
  if (leftOut !== undefined) return leftOut;
  if (!truncated) return undefined;
  return outputPath === undefined
    ? "The output was cut to its head; the rest is not shown."
    : `The output was cut to its head; all of it is in ${outputPath}.`;
}

/** The tools whose result's `note` says what their walk left out because Lathe hides it. */
const SEARCH_TOOLS = new Set(["glob", "grep"]);

/**
 * What a search (glob, grep) left out of its walk because no tool may read it — hidden folders
 * such as ~/.ssh, and what hides them; how many files your permission rules deny reading or ask
 * about — as a sentence (the model reads it as `data.note`).
 * Undefined for any other tool (a plugin's `note` is its own data) or when nothing was left out.
 */
export function hiddenPathsNote(toolName: string, envelope: Envelope | undefined): string | undefined {
  if (!SEARCH_TOOLS.has(toolName) || envelope?.type !== "output") return undefined;
  const data = envelope.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  const note = (data as Record<string, unknown>)["note"];
  if (typeof note !== "string" || note.trim() === "") return undefined;
  const text = note.trim();
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? "" : "."}`;
}

/** A run of a note's text: plain, or a command or a path drawn as code. */
export interface NotePart {
  text: string;
  code: boolean;
}

/**
 * A note as the runs a view draws: what it quotes between backticks (a command) and each mention
 * of `path` (the file holding the whole output) as code, the rest as plain text. An unpaired
 * backtick stays plain.
 */
export function noteParts(note: string, path?: string): NotePart[] {
  const quoted = note.split("`");
  // An even number of pieces means the last backtick has no pair: it and what follows are plain.
  if (quoted.length % 2 === 0) quoted.splice(-2, 2, `${quoted.at(-2) ?? ""}\`${quoted.at(-1) ?? ""}`);
  const parts: NotePart[] = [];
  quoted.forEach((piece, index) => {
    if (index % 2 === 1) parts.push({ text: piece, code: true });
    else if (path === undefined || path === "") parts.push({ text: piece, code: false });
    else
      piece.split(path).forEach((plain, at) => {
        if (at > 0) parts.push({ text: path, code: true });
        parts.push({ text: plain, code: false });
      });
  });
  return parts.filter((part) => part.text !== "");
}
