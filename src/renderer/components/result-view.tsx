import { useMemo } from "react";
import type { Envelope } from "../../shared/api-contract.ts";
import { envelopeFields } from "../state/envelope-fields.ts";
import { cutNote, hiddenPathsNote } from "../state/result-notes.ts";
import { previewText } from "../state/text-preview.ts";
import { useAppState } from "../state/store-context.tsx";
import { LongText } from "./long-text.tsx";
import { OUTCOME_BADGE } from "./outcome-badge.ts";
import { OUTCOME_LABEL } from "./outcome-label.ts";
import { ResultNote } from "./result-note.tsx";

/** The envelope's metadata; the file holding the whole output only when no note names it (`noted`). */
function Metadata({ metadata, noted }: { metadata: Envelope["metadata"]; noted: boolean }) {
  return (
    <dl className="metadata" aria-label="Metadata">
      <div>
        <dt>duration</dt>
        <dd>{Math.round(metadata.duration_ms * 100) / 100} ms</dd>
      </div>
      <div>
        <dt>truncated</dt>
        <dd>{metadata.truncated ? "yes" : "no"}</dd>
      </div>
      {metadata.output_path && !noted ? (
        <div>
          <dt>full output</dt>
          <dd>
            <code>{metadata.output_path}</code>
          </dd>
        </div>
      ) : null}
    </dl>
  );
}

/**
 * An envelope's data as a person reads it: its short fields as name and value, each text (a
 * command's output, a file, a list) under its name as lines, drawn up to a limit. A cut result's
 * note (`cut`) is said once: in the line under the first text the page does not draw whole, else
 * on its own above the data. A search's note on the hidden folders it left out (`hidden`) is said
 * above the data too, rather than as one of its fields.
 */
function EnvelopeData({
  data,
  outputPath,
  cut,
  hidden,
}: {
  data: unknown;
  outputPath: string | undefined;
  cut: string | undefined;
  hidden: string | undefined;
}) {
  const fields = useMemo(
    () => envelopeFields(data).filter((f) => hidden === undefined || f.name !== "note"),
    [data, hidden],
  );
  const values = fields.filter((f) => f.kind === "value");
  const texts = fields.filter((f) => f.kind === "text");
  const noted = useMemo(
    () =>
      cut === undefined
        ? undefined
        : fields.find((f) => f.kind === "text" && previewText(f.text).hiddenChars > 0)?.name,
    [cut, fields],
  );
  return (
    <div className="data-fields" aria-label="Data">
      {cut !== undefined && noted === undefined ? (
        <ResultNote label="Left out" note={cut} path={outputPath} className="result-note" />
      ) : null}
      {hidden !== undefined ? (
        <ResultNote label="Hidden paths" note={hidden} className="result-note" />
      ) : null}
      {values.length > 0 ? (
        <dl className="data-values" aria-label="Fields">
          {values.map((f) => (
            <div key={f.name}>
              <dt>{f.name}</dt>
              <dd>
                <code>{f.text}</code>
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {texts.map((f) => (
        <div key={f.name} className="data-text">
          <h3>{f.name}</h3>
          <LongText
            label={f.name}
            className="data"
            text={f.text}
            outputPath={outputPath}
            note={f.name === noted ? cut : undefined}
          />
        </div>
      ))}
    </div>
  );
}

/** The envelope of the last run: its type, its data or error text, and its metadata. */
export function ResultView() {
  const result = useAppState((s) => s.result);
  const running = useAppState((s) => s.running);
  // Another tool may be on screen while it runs: say which one runs.
  const runningToolId = useAppState((s) => s.runningToolId);

  return (
    <section className="panel result" aria-labelledby="result-heading" aria-busy={running}>
      <h2 id="result-heading">Result</h2>
      {!result ? (
        <p className="muted">
          {running ? `Running ${runningToolId ?? "a tool"}…` : "Run a tool to see its result envelope here."}
        </p>
      ) : result.status === "failed" ? (
        <div role="alert" className="envelope envelope-error">
          <p>
            <span className="badge badge-error">not run</span> {result.toolId}
          </p>
          <pre className="error-text">{result.message}</pre>
        </div>
      ) : (
        <div className={`envelope envelope-${result.envelope.type}`} aria-label="Envelope">
          <p className="envelope-head">
            <span className={OUTCOME_BADGE[result.envelope.type]}>{OUTCOME_LABEL[result.envelope.type]}</span>{" "}
            <span className="muted">from</span> <code>{result.toolId}</code>
          </p>
          {/* A cut result's note names the file that holds all of it: said there, once. */}
          <Metadata metadata={result.envelope.metadata} noted={cutNote(result.envelope) !== undefined} />
          {result.envelope.type === "output" ? (
            <EnvelopeData
              data={result.envelope.data}
              outputPath={result.envelope.metadata.output_path}
              cut={cutNote(result.envelope)}
              hidden={hiddenPathsNote(result.toolId, result.envelope)}
            />
          ) : (
            <LongText
              label="Error text"
              className="error-text"
              text={result.envelope.error_text}
              outputPath={result.envelope.metadata.output_path}
              note={cutNote(result.envelope)}
            />
          )}
        </div>
      )}
    </section>
  );
}
