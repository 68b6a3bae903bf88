import { describe, expect, it } from "vitest";
import { readsItsFolder } from "./read-only-paths.ts";

// A folder reader given no folder reads the one it runs in: that folder must then be checked.
describe("readsItsFolder", () => {
  it.each([
    ["grep", "-r x", true],
    ["grep", "-rn -m 5 x", true],
    ["grep", "-rn -m5 x", true],
    ["grep", "-r -e x", true],
    ["grep", "-r --regexp x", true],
    ["grep", "-r --max-count 3 x", true],
    ["rg", "x", true],
    ["rg", "-g *.ts x", true],
    // A value option by a prefix getopt takes, or one not listed: the next word is no folder.
    ["grep", "-r --max-c 5 x", true],
    ["grep", "-r --include *.ts x", true],
    ["grep", "-r --no-such-option x", true],
    ["rg", "--max-depth 5 x", true],
    ["grep", "-r --ignore-case x src", false],
    ["grep", "-r --ign x src", false],
    ["grep", "-r x src", false],
    ["grep", "-r -e x src", false],
    ["grep", "-r -- -x src", false],
    ["rg", "-n TODO src lib", false],
    ["diff", "-r a b", false],
  ])("%s %s: %s", (program, args, expected) => {
    expect(readsItsFolder(program, args.split(" "))).toBe(expected);
  });
});
