import { describe, expect, it } from "vitest";
import {
  countLines,
  decodeText,
  detectLineEnding,
  encodeText,
  isBinary,
  roundTrips,
  sliceLines,
  toCrlf,
  toLf,
} from "./text-codec.ts";

const bom16le = (s: string): Buffer => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]);
const bom16be = (s: string): Buffer =>
  Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(s, "utf16le").swap16()]);

describe("text codec", () => {
  it.each([
    ["UTF-8", Buffer.from("plain ✓\n"), "utf8", "plain ✓\n"],
    ["UTF-8 with BOM", Buffer.from("\ufeffbom ✓\n"), "utf8-bom", "bom ✓\n"],
    ["UTF-16LE", bom16le("wide ✓\r\n"), "utf16le", "wide ✓\r\n"],
    ["UTF-16BE", bom16be("big ✓\n"), "utf16be", "big ✓\n"],
    ["latin1", Buffer.from([0x63, 0x61, 0x66, 0xe9]), "latin1", "café"],
  ])("decodes %s and encodes it back to the same bytes", (_name, bytes, encoding, text) => {
    const decoded = decodeText(bytes);
    expect(decoded).toEqual({ text, encoding });
    expect(encodeText(decoded.text, decoded.encoding)).toEqual(bytes);
    expect(roundTrips(bytes, decoded)).toBe(true);
  });

  it("notices UTF-16 bytes that would not survive a round trip", () => {
    const odd = Buffer.concat([bom16le("ab"), Buffer.from([0x41])]);
    expect(roundTrips(odd, decodeText(odd))).toBe(false);
  });

  it("refuses to encode characters latin1 cannot hold", () => {
    expect(() => encodeText("5 €", "latin1")).toThrow(/U\+20AC/);
  });

  it("calls a file binary for a NUL in the first 8 KB, unless it has a UTF-16 BOM", () => {
    expect(isBinary(Buffer.from([0x41, 0x00, 0x42]))).toBe(true);
    expect(isBinary(bom16le("text"))).toBe(false);
    expect(isBinary(Buffer.concat([Buffer.alloc(8192, 0x41), Buffer.from([0])]))).toBe(false);
    expect(isBinary(Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x41, 0x00, 0x00, 0x00]))).toBe(true);
    expect(isBinary(Buffer.alloc(0))).toBe(false);
  });

  it("detects line endings and converts between them without losing stray CRs", () => {
    expect(detectLineEnding("a\nb\n")).toBe("lf");
    expect(detectLineEnding("a\r\nb\r\n")).toBe("crlf");
    expect(detectLineEnding("a\r\nb\n")).toBe("mixed");
    expect(detectLineEnding("no break")).toBe("none");
    expect(detectLineEnding("a\rb\r")).toBe("cr");
    const text = "x\r\r\ny\r\n";
    expect(toCrlf(toLf(text))).toBe(text);
  });

  it("counts and slices lines as an editor does", () => {
    expect([
      countLines(""),
      countLines("a"),
      countLines("a\n"),
      countLines("a\nb"),
      countLines("\n\n"),
    ]).toEqual([0, 1, 1, 2, 2]);
    expect(sliceLines("1\n2\r\n3\n4", 2, 2)).toBe("2\r\n3\n");
    expect(sliceLines("1\n2\n3", 3, undefined)).toBe("3");
    expect(sliceLines("1\n2\n3", 2, 99)).toBe("2\n3");
  });
});
