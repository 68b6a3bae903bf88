import { describe, expect, it } from "vitest";
import { oneLinePath } from "./one-line-path.ts";

describe("oneLinePath", () => {
  it.each([
    ["src/a.ts", "src/a.ts"],
    ["dir with spaces/é 😀.txt", "dir with spaces/é 😀.txt"],
    ['it\'s "q".txt', 'it\'s "q".txt'],
    ["-rf", "-rf"],
    ["evil\nsecret.key", '"evil\\nsecret.key"'],
    ["t\tb.txt", '"t\\tb.txt"'],
    ["cr\rx", '"cr\\rx"'],
    ["\u001b[2Jgone", '"\\u001b[2Jgone"'],
    ['"quoted".txt', '"\\"quoted\\".txt"'],
  ])("writes %j on one line as %s", (input, line) => {
    const written = oneLinePath(input);
    expect(written).toBe(line);
    expect(written).not.toMatch(/\p{Cc}/u);
    // A quoted line reads back as the very name.
    if (written.startsWith('"')) expect(JSON.parse(written)).toBe(input);
  });
});
