import { describe, expect, it } from "vitest";
import { readFrontMatter } from "./front-matter.ts";

describe("readFrontMatter", () => {
  it("splits the YAML from the text after it", () => {
    expect(readFrontMatter("---\nname: a\n---\nBody\n", "f.md", "how")).toEqual({
      data: { name: "a" },
      yaml: "name: a",
      body: "Body\n",
    });
  });

  it("says broken YAML in one line naming the file and where it broke (notices repeat it at every start)", () => {
    const thrown = (() => {
      try {
        readFrontMatter("---\nname: x\ndescription: [unclosed\n---\nx\n", "/s/SKILL.md", "how");
      } catch (err) {
        return (err as Error).message;
      }
      return "";
    })();
    expect(thrown).toMatch(
      /^\/s\/SKILL\.md: the front matter is not valid YAML: .* at line 3, column \d+\.$/,
    );
    expect(thrown).not.toContain("\n");
  });

  const thrownBy = (text: string): string => {
    try {
      readFrontMatter(text, "/a/agent.md", "how");
    } catch (err) {
      return (err as Error).message;
    }
    return "";
  };

  it("says front matter too deep for the YAML parser is nested too deep, where, and the limit", () => {
    // Flow collections all on the file's third line, and block mappings each a line deeper.
    for (const [yaml, line] of [
      [`description: x\nnest: ${"[".repeat(5000)}${"]".repeat(5000)}`, "3"],
      [
        `description: x\n${Array.from({ length: 3000 }, (_, i) => `${" ".repeat(i)}a:`).join("\n")} 1`,
        "\\d+",
      ],
    ] as const) {
      const thrown = thrownBy(`---\n${yaml}\n---\nBody\n`);
      expect(thrown).toMatch(
        new RegExp(
          String.raw`^/a/agent\.md: the front matter at line ${line}, column \d+ is nested too deep to read \(front matter may nest at most 100 levels\): keep its fields within 100 levels\.$`,
        ),
      );
      expect(thrown).not.toMatch(/call stack|not valid YAML/);
    }
  });

  it("refuses front matter past the limit that the parser can still read, and reads it at the limit", () => {
    const nested = (levels: number) =>
      `---\ndescription: x\nnest: ${"[".repeat(levels)}${"]".repeat(levels)}\n---\nBody\n`;
    expect(thrownBy(nested(150))).toBe(
      "/a/agent.md: the front matter is nested deeper than 100 levels, which Lathe does not read: keep its fields within 100 levels.",
    );
    expect(thrownBy(nested(99))).toBe("");
  });

  it("says how to start the file when there is no front matter", () => {
    expect(() => readFrontMatter("Just text", "/a.md", "start it with ---.")).toThrow(
      "/a.md has no front matter: start it with ---.",
    );
  });
});
