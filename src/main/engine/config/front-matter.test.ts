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

  it("says how to start the file when there is no front matter", () => {
    expect(() => readFrontMatter("Just text", "/a.md", "start it with ---.")).toThrow(
      "/a.md has no front matter: start it with ---.",
    );
  });
});
