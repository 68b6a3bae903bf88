import { describe, expect, it } from "vitest";
import { diffLines } from "./diff-lines.ts";

describe("a unified diff's lines", () => {
  it("tells file headers, hunks, additions, removals and context apart", () => {
    const diff = [
      "Index: a.txt",
      "===================================================================",
      "--- a.txt",
      "+++ a.txt",
      "@@ -1,3 +1,3 @@",
      " keep",
      "--- a removed line that looks like a header",
      "+++ an added line that looks like a header",
      " end",
      "\\ No newline at end of file",
      "",
    ].join("\n");
    expect(diffLines(diff).map((l) => l.kind)).toEqual([
      "file",
      "file",
      "file",
      "file",
      "hunk",
      "context",
      "remove",
      "add",
      "context",
      "context",
    ]);
  });
});
