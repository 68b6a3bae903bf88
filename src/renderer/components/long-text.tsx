import { useMemo, useState } from "react";
import { PREVIEW_LIMITS, previewText, type TextPreview } from "../state/text-preview.ts";
import { NoteText, ResultNote } from "./result-note.tsx";
import { counted } from "../../shared/counted.ts";

const count = new Intl.NumberFormat("en");

function size(chars: number): string {
  if (chars < 1024) return counted(chars, "character", { shown: count.format(chars) });
  if (chars < 1024 * 1024) return `${count.format(Math.round(chars / 1024))} K characters`;
  return `${count.format(Math.round((chars / (1024 * 1024)) * 10) / 10)} M characters`;
}

/**
 * The head of `text` a view draws at first (`PREVIEW_LIMITS`), and `more`, which draws as much
 * again each time it is called.
 */
export function useTextPreview(text: string): { preview: TextPreview; more: () => void } {
  const [limits, setLimits] = useState<{ lines: number; chars: number }>(PREVIEW_LIMITS);
  const preview = useMemo(() => previewText(text, limits), [text, limits]);
  const more = () =>
    setLimits((l) => ({ lines: l.lines + PREVIEW_LIMITS.lines, chars: l.chars + PREVIEW_LIMITS.chars }));
  return { preview, more };
}

/**
 * What a preview left out of its text, said under it: how much, with a button that draws more;
 * and where the whole of it is — the note of a cut result (`note`, what the tool left out and the
 * file holding all of it), else the file (`outputPath`) alone. One line says both; with nothing
 * left out of the preview, the note alone (labelled "Left out"), or nothing.
 */
export function PreviewRest({
  label,
  preview,
  outputPath,
  note,
  onMore,
}: {
  label: string;
  preview: TextPreview;
  outputPath?: string | undefined;
  note?: string | undefined;
  onMore: () => void;
}) {
  if (preview.hiddenChars === 0)
    return note === undefined ? null : (
      <ResultNote label="Left out" note={note} path={outputPath} className="long-text-rest" />
    );
  return (
    <p className="muted long-text-rest" role="note" aria-label={`${label}: not shown`}>
      {`${count.format(preview.totalLines - preview.hiddenLines)} of the result's ${count.format(preview.totalLines)} lines shown; ${count.format(preview.hiddenLines)} more (${size(preview.hiddenChars)}) not drawn here. `}
      {note !== undefined ? (
        <>
          <NoteText note={note} path={outputPath} />{" "}
        </>
      ) : outputPath !== undefined ? (
        <>
          The tool kept its whole output in <code>{outputPath}</code>.{" "}
        </>
      ) : null}
      <button type="button" className="link-button" onClick={onMore}>
        Show {count.format(Math.min(PREVIEW_LIMITS.lines, preview.hiddenLines))} more lines
      </button>
    </p>
  );
}

/**
 * A text as its lines (newlines kept), drawn up to a limit so a huge one keeps the page quick,
 * with what is left out said under it (`PreviewRest`, with the cut result's `note` when given).
 */
export function LongText({
  label,
  text,
  outputPath,
  note,
  className,
}: {
  label: string;
  text: string;
  outputPath?: string | undefined;
  note?: string | undefined;
  className: string;
}) {
  const { preview, more } = useTextPreview(text);
  return (
    <>
      <pre className={className} aria-label={label}>
        {preview.shown}
      </pre>
      <PreviewRest label={label} preview={preview} outputPath={outputPath} note={note} onMore={more} />
    </>
  );
}
