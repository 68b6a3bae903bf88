import { useMemo } from "react";
import { diffLines } from "../state/diff-lines.ts";

/** A unified diff, added lines green and removed lines red. */
export function DiffView({ diff }: { diff: string }) {
  const lines = useMemo(() => diffLines(diff), [diff]);
  return (
    <pre className="diff" aria-label="Diff" tabIndex={0}>
      {lines.map((line, index) => (
        <span key={index} className={`diff-line diff-${line.kind}`}>
          {line.text}
          {"\n"}
        </span>
      ))}
    </pre>
  );
}
