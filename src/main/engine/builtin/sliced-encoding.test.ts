import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeTextInSlices } from "./sliced-encoding.ts";
import { encodeText, type TextEncoding } from "./text-codec.ts";

const SLICE = 256 * 1024;
const sha = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

describe("encodeTextInSlices", () => {
  it.each<[string, string, TextEncoding]>([
    ["short UTF-8", "héllo\n", "utf8"],
    ["UTF-8 over several slices", "line ünïcödé €\n".repeat(60_000), "utf8"],
    ["UTF-8 with BOM over several slices", "b".repeat(SLICE * 2 + 17), "utf8-bom"],
    ["UTF-16LE over several slices", "ab€\n".repeat(SLICE / 2), "utf16le"],
    ["UTF-16BE over several slices", "ab€\n".repeat(SLICE / 2), "utf16be"],
    ["latin1 over several slices", "café\n".repeat(SLICE / 2), "latin1"],
    // A surrogate pair exactly where a slice would end must not be split (it would become two U+FFFD).
    ["an emoji astride a slice boundary", `${"a".repeat(SLICE - 1)}😀${"z".repeat(SLICE)}`, "utf8"],
  ])("gives encodeText's bytes and their SHA-256 for %s", async (_name, text, encoding) => {
    const expected = encodeText(text, encoding);
    const { encoded, sha256 } = await encodeTextInSlices(text, encoding);
    expect(encoded.equals(expected)).toBe(true);
    expect(sha256).toBe(sha(expected));
  });

  it.each<[TextEncoding, (text: string) => Buffer]>([
    ["utf16le-nobom", (text) => Buffer.from(text, "utf16le")],
    ["utf16be-nobom", (text) => Buffer.from(text, "utf16le").swap16()],
  ])(
    "writes %s over several slices with no byte order mark, at the start or between slices",
    async (encoding, plain) => {
      const text = `${"ab€\n".repeat(SLICE / 2)}😀`;
      const { encoded, sha256 } = await encodeTextInSlices(text, encoding);
      expect(encoded.equals(plain(text))).toBe(true);
      expect(sha256).toBe(sha(plain(text)));
    },
  );

  it("throws encodeText's error for a character latin1 cannot hold, even far into the text", async () => {
    const text = `${"x".repeat(SLICE * 3)}→`;
    expect(() => encodeText(text, "latin1")).toThrow(RangeError);
    await expect(encodeTextInSlices(text, "latin1")).rejects.toThrow(
      'the character "→" (U+2192) cannot be written in latin1 (ISO-8859-1)',
    );
  });

  it("gives the event loop turns while it encodes a long text", async () => {
    let turns = 0;
    let counting = true;
    const count = (): void => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await encodeTextInSlices("y".repeat(SLICE * 8), "utf8");
    counting = false;
    expect(turns).toBeGreaterThanOrEqual(8);
  });

  it("stops when its signal aborts", async () => {
    const controller = new AbortController();
    const pending = encodeTextInSlices("y".repeat(SLICE * 8), "utf8", controller.signal);
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });
});
