import { describe, expect, it } from "vitest";
import { parseJsonText } from "./json-text.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("parseJsonText (a settings file's text as people write and break it)", () => {
  it.each([
    [
      "a trailing comma in an object",
      '{\n  "permissions": [],\n}\n',
      /^line 2, column 20: a comma after the last entry.*remove it/,
    ],
    [
      "a trailing comma in a list (JSON.parse names no line)",
      '{\n "permissions": [\n  {"permission":"read","pattern":"a","action":"deny"},\n ]\n}',
      /^line 3, column 54: a comma after the last entry/,
    ],
    ["a // comment", '{\n  // mine\n  "permissions": []\n}', /^line 2, column 3: a comment: .*remove it/],
    ["a /* comment */", '{ "permissions": [] /* x */ }', /^line 1, column 21: a comment/],
    [
      "single quotes",
      "{ 'permissions': [] }",
      /^line 1, column 3: a single-quoted string: JSON needs double quotes/,
    ],
    [
      "an unquoted name",
      "{ permissions: [] }",
      /^line 1, column 3: unquoted text "permissions": put names and text in double quotes/,
    ],
    [
      "a missing comma",
      '{\n "a": 1\n "b": 2\n}',
      /^line 3, column 2: a missing "," before this entry of the top level: add one after the entry before it/,
    ],
    [
      "an unclosed object",
      '{"approvals": {"mode": "ask"}',
      /^line 1, column 30: the file ends where .*something is not closed/,
    ],
    [
      "an unclosed string",
      '{"defaultModel": "ollama:m}',
      /^line 1, column 18: a string that is never closed/,
    ],
    [
      "a line break in a string",
      '{"defaultModel": "ollama:\nm"}',
      /^line 1, column 26: a line break or control character inside a string/,
    ],
    ["text after the object", "{}\n{}", /^line 2, column 1: more text after the settings object/],
    ["an empty file", "", /^it is empty: write \{\} for no settings, or delete the file$/],
    ["only spaces", " \n\t\n", /^it is empty/],
    ["NaN", '{"web": {"fetch": {"timeoutMs": NaN}}}', /^line 1, column 33: unquoted text "NaN"/],
  ])("%s: names the line, the column and the fix", (_name, text, problem) => {
    // The control: JSON.parse refuses each of these too, or (empty text) says nothing useful.
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
    const read = parseJsonText(bytes(text));
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.problem).toMatch(problem);
  });

  it.each([
    [
      "permissions written twice (the deny rules of the first would be dropped)",
      '{\n "permissions": [{"permission":"read","pattern":"secrets/**","action":"deny"}],\n "approvals": {},\n "permissions": []\n}',
      /^line 4, column 2: "permissions" is written a second time \(first on line 2\): .*silently drop.*merge them/,
    ],
    [
      "one MCP server's key written twice",
      '{"mcpServers": {"gh": {"command": "a", "command": "b"}}}',
      /^line 1, column 40: "mcpServers\.gh\.command" is written a second time/,
    ],
    [
      "a key twice inside a list's object",
      '{"permissions": [{"permission":"read","action":"deny","action":"allow"}]}',
      /"permissions\.0\.action" is written a second time/,
    ],
    [
      "a number past what JSON.parse can hold",
      '{"web": {"fetch": {"timeoutMs": 1e400}}}',
      /^line 1, column 33: the number 1e400 is too large to be read: write a smaller one$/,
    ],
    [
      "a server named __proto__ (JSON.parse keeps it, zod's record output drops it)",
      '{"mcpServers": {"__proto__": {"command": "node"}}}',
      /^line 1, column 17: the name "__proto__" \(at "mcpServers\.__proto__"\) cannot be used in settings: rename it/,
    ],
  ])("%s: refused, though JSON.parse accepts it", (_name, text, problem) => {
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    const read = parseJsonText(bytes(text));
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.problem).toMatch(problem);
  });

  it("refuses UTF-16 (either byte order) and text in a legacy encoding, saying to save it as UTF-8", () => {
    const utf16le = Uint8Array.from([0xff, 0xfe, ...[..."{}"].flatMap((c) => [c.charCodeAt(0), 0])]);
    const utf16be = Uint8Array.from([0xfe, 0xff, ...[..."{}"].flatMap((c) => [0, c.charCodeAt(0)])]);
    for (const data of [utf16le, utf16be]) {
      const read = parseJsonText(data);
      expect(read.ok ? "" : read.problem).toMatch(/saved as UTF-16 text: save it as UTF-8/);
    }
    // "~/Données" in Latin-1: a lenient decoder would make it another path, so denyRead would hide the wrong one.
    const latin1 = Uint8Array.from([
      ...bytes('{\n"sandbox": {"denyRead": ["~/Donn'),
      0xe9,
      ...bytes('es"]}}'),
    ]);
    const read = parseJsonText(latin1);
    expect(read.ok ? "" : read.problem).toMatch(/^it is not UTF-8 text \(from line 2\): save it as UTF-8/);
  });

  it("reads valid JSON, a byte-order mark and deep nesting as JSON.parse does, keeping the text as written", () => {
    const text =
      '\uFEFF{"mcpServers": {"constructor": {"command": "node"}}, "a": [1, -2.5e3, true, null, "x\\"y"]}';
    const read = parseJsonText(bytes(text));
    expect(read).toEqual({ ok: true, text, json: JSON.parse(text.slice(1)) as unknown });
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(parseJsonText(bytes(deep)).ok).toBe(true);
  });
});
