import { noteParts } from "../state/result-notes.ts";

/** A note's text, its commands and the file it names (`path`) drawn as code. */
export function NoteText({ note, path }: { note: string; path?: string | undefined }) {
  return (
    <>
      {noteParts(note, path).map((part, index) =>
        part.code ? <code key={index}>{part.text}</code> : <span key={index}>{part.text}</span>,
      )}
    </>
  );
}

/**
 * A note on a result, said quietly on a line of its own (it is not an error): what a cut result
 * leaves out, or what a search left out of its walk.
 */
export function ResultNote({
  label,
  note,
  path,
  className,
}: {
  label: string;
  note: string;
  path?: string | undefined;
  className: string;
}) {
  return (
    <p className={`muted ${className}`} role="note" aria-label={label}>
      <NoteText note={note} path={path} />
    </p>
  );
}
