import { describe, expect, it } from "vitest";
import type { Envelope } from "../../shared/envelope-schema.ts";
import { cutNote, hiddenPathsNote, noteParts } from "./result-notes.ts";

const output = (metadata: Envelope["metadata"]): Envelope => ({ type: "output", data: {}, metadata });

describe("cutNote", () => {
  it.each<[string, Envelope | undefined, string | undefined]>([
    ["no envelope yet", undefined, undefined],
    ["a whole result", output({ duration_ms: 1 }), undefined],
    [
      "the model's note, as it read it",
      output({ duration_ms: 1, truncated: true, output_path: "/s/x.txt", left_out: "Only 3 of 9." }),
      "Only 3 of 9.",
    ],
    [
      "what is left out and where, without how the model reads the rest",
      output({
        duration_ms: 1,
        truncated: true,
        output_path: "/s/x.txt",
        left_out: "Only 3 of 9 are shown. All of it is in /s/x.txt.",
        read_rest: "See its end with bash `tail -n 100 /s/x.txt`.",
      }),
      "Only 3 of 9 are shown. All of it is in /s/x.txt.",
    ],
    [
      "an older cut result with its file",
      output({ duration_ms: 1, truncated: true, output_path: "/s/x.txt" }),
      "The output was cut to its head; all of it is in /s/x.txt.",
    ],
    [
      "an older cut result whose file could not be kept",
      output({ duration_ms: 1, truncated: true }),
      "The output was cut to its head; the rest is not shown.",
    ],
  ])("%s", (_, envelope, note) => {
    expect(cutNote(envelope)).toBe(note);
  });
});

describe("noteParts", () => {
  it.each<[string, string, string | undefined, Array<[string, boolean]>]>([
    ["plain text", "Nothing to quote.", undefined, [["Nothing to quote.", false]]],
    [
      "commands between backticks and the path",
      "All of it is in /s/x.txt: see its end with bash `tail -n 100 /s/x.txt`, or read it.",
      "/s/x.txt",
      [
        ["All of it is in ", false],
        ["/s/x.txt", true],
        [": see its end with bash ", false],
        ["tail -n 100 /s/x.txt", true],
        [", or read it.", false],
      ],
    ],
    [
      "an unpaired backtick stays plain",
      "a `b` c `d",
      undefined,
      [
        ["a ", false],
        ["b", true],
        [" c `d", false],
      ],
    ],
    ["a path that is not mentioned", "left out 2 paths", "/s/x.txt", [["left out 2 paths", false]]],
    ["an empty path is not a mention", "abc", "", [["abc", false]]],
  ])("%s", (_, note, path, parts) => {
    expect(noteParts(note, path)).toEqual(parts.map(([text, code]) => ({ text, code })));
  });

  it("keeps every character of the note, in order", () => {
    const note = "x `y` /p z /p `w /p`";
    expect(
      noteParts(note, "/p")
        .map((p) => p.text)
        .join(""),
    ).toBe(note.replaceAll("`", ""));
  });
});

describe("hiddenPathsNote", () => {
  const NOTE =
    "left out 2 hidden paths, which no tool or command may read: ~/.ssh, ~/.aws (sandbox.denyRead)";
  const result = (data: unknown): Envelope => ({ type: "output", data, metadata: { duration_ms: 1 } });
  it.each<[string, string, Envelope | undefined, string | undefined]>([
    [
      "glob's note, as a sentence",
      "glob",
      result({ files: [], note: NOTE }),
      "Left out 2 hidden paths, which no tool or command may read: ~/.ssh, ~/.aws (sandbox.denyRead).",
    ],
    [
      "grep's note",
      "grep",
      result({ matches: [], note: "left out 1 hidden path: ~/.ssh." }),
      "Left out 1 hidden path: ~/.ssh.",
    ],
    ["a search that hid nothing", "glob", result({ files: ["a.ts"] }), undefined],
    ["a plugin's own note is its data", "notes_plugin", result({ note: "buy milk" }), undefined],
    [
      "a failed search",
      "grep",
      { type: "error", error_text: "bad", metadata: { duration_ms: 1 } },
      undefined,
    ],
    ["a note that is not text", "glob", result({ files: [], note: 3 }), undefined],
    ["an empty note", "glob", result({ files: [], note: "  " }), undefined],
    ["data that is not an object", "glob", result(["a"]), undefined],
    ["no envelope yet", "glob", undefined, undefined],
  ])("%s", (_, tool, envelope, note) => {
    expect(hiddenPathsNote(tool, envelope)).toBe(note);
  });
});
