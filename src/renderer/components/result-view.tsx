import type { Envelope } from "../../shared/api-contract.ts";
import { useAppState } from "../state/store-context.tsx";

function Metadata({ metadata }: { metadata: Envelope["metadata"] }) {
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
      {metadata.output_path ? (
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

/** The envelope of the last run: its type, its data or error text, and its metadata. */
export function ResultView() {
  const result = useAppState((s) => s.result);
  const running = useAppState((s) => s.running);

  return (
    <section className="panel result" aria-labelledby="result-heading" aria-busy={running}>
      <h2 id="result-heading">Result</h2>
      {!result ? (
        <p className="muted">{running ? "Running…" : "Run a tool to see its result envelope here."}</p>
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
            <span className={result.envelope.type === "output" ? "badge badge-output" : "badge badge-error"}>
              {result.envelope.type}
            </span>{" "}
            <span className="muted">from</span> <code>{result.toolId}</code>
          </p>
          <Metadata metadata={result.envelope.metadata} />
          {result.envelope.type === "output" ? (
            <pre className="data" aria-label="Data">
              {JSON.stringify(result.envelope.data, null, 2)}
            </pre>
          ) : (
            <pre className="error-text" aria-label="Error text">
              {result.envelope.error_text}
            </pre>
          )}
        </div>
      )}
    </section>
  );
}
