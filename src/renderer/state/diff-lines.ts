/** One line of a unified diff, with what it is: a file header, a hunk header, added, removed, or context. */
interface DiffLine {
  kind: "file" | "hunk" | "add" | "remove" | "context";
  text: string;
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/**
 * Classify the lines of a unified diff (as the `edit` tool returns it) for colouring. Hunk
 * headers give how many old and new lines follow, so a removed line that itself starts with "--"
 * is never taken for a file header.
 */
export function diffLines(diff: string): DiffLine[] {
  let oldLeft = 0;
  let newLeft = 0;
  return diff
    .replace(/\n$/, "")
    .split("\n")
    .map((text): DiffLine => {
      const hunk = HUNK.exec(text);
      if (hunk) {
        oldLeft = Number(hunk[1] ?? "1");
        newLeft = Number(hunk[2] ?? "1");
        return { kind: "hunk", text };
      }
      // "\ No newline at end of file" belongs to the line before it.
      if (text.startsWith("\\")) return { kind: "context", text };
      if (oldLeft <= 0 && newLeft <= 0) return { kind: "file", text };
      if (text.startsWith("+")) {
        newLeft--;
        return { kind: "add", text };
      }
      if (text.startsWith("-")) {
        oldLeft--;
        return { kind: "remove", text };
      }
      oldLeft--;
      newLeft--;
      return { kind: "context", text };
    });
}
