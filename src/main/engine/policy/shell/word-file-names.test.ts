import { describe, expect, it } from "vitest";
import { wordFileNames } from "./word-file-names.ts";

describe("wordFileNames: what one argument may name a file by", () => {
  it.each([
    ["notes.txt", ["notes.txt"]],
    ["if=/dev/sda", ["if=/dev/sda", "/dev/sda"]],
    ["--file=.env", [".env"]],
    ["--verbose", []],
    ["-", ["-"]],
    // getopt reads `-a<file>` as `-a <file>`, and a cluster's last letter may take it.
    ["-a/home/u/.ssh/id", ["/home/u/.ssh/id"]],
    ["-0a/etc/x", ["a/etc/x", "/etc/x"]],
    ["-adocs/key.txt", ["docs/key.txt", "ocs/key.txt", "cs/key.txt", "s/key.txt", "/key.txt"]],
    ["-la", ["a"]],
    ["-n", []],
  ])("%s", (word, texts) => {
    expect(wordFileNames(word).map((n) => n.text)).toEqual(texts);
  });

  it("marks the readings of an attached value, which may be option letters instead", () => {
    expect(wordFileNames("-la")).toEqual([{ text: "a", attached: true }]);
    expect(wordFileNames("a.txt")).toEqual([{ text: "a.txt" }]);
  });
});
