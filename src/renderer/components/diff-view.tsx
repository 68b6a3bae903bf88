import { useMemo } from "react";
import { escapeBidiControls } from "../../shared/bidi-controls.ts";
import { diffLines } from "../state/diff-lines.ts";

/**
 * A unified diff, added lines green and removed lines red. Characters that reorder the text
 * around them are shown as their escapes (`\u202e`), in its paths and its lines alike: a change
 * that reads one way and does another ("Trojan Source") is then seen for what it is.
 */
export function DiffView({ diff }: { diff: string }) {
  const lines = useMemo(() => diffLines(escapeBidiControls(diff)), [diff]);
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
