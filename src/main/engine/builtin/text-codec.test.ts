import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import Database from "better-sqlite3";
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

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

// Texts in other scripts, written for these tests; in UTF-16 few or none of their units are ASCII.
const JAPANESE =
  "今日は朝から雨が降っている。\n窓の外を見ながら、温かいお茶を飲んだ。\n午後には晴れるといいのだが、天気予報は曇りだと言っていた。\n明日は友達と公園へ行く予定だ。\n";
const RUSSIAN = "Утром шёл дождь, и мы остались дома.\nВечером небо прояснилось, и мы пошли гулять у реки.\n";
const CHINESE =
  "今天早上下了一场大雨，街上的人都打着伞。\n中午雨停了，阳光照在湿漉漉的路面上。\n我们决定下午去图书馆看书，晚上再一起吃饭。\n明天如果天气好，我们就去爬山。\n";
const GREEK =
  "Το πρωί έβρεξε πολύ και μείναμε στο σπίτι.\nΤο απόγευμα ο ουρανός καθάρισε και βγήκαμε βόλτα.\n";

/** The bytes of a small real SQLite database file. */
function sqliteFile(): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), "lathe-codec-"));
  try {
    const file = path.join(dir, "t.db");
    const db = new Database(file);
    db.exec("CREATE TABLE t (name TEXT); INSERT INTO t VALUES ('привет'), ('今日は');");
    db.close();
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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

  describe("UTF-16 without a byte order mark", () => {
    const le = (s: string): Buffer => Buffer.from(s, "utf16le");
    const be = (s: string): Buffer => Buffer.from(s, "utf16le").swap16();
    /** Bytes that look random but are the same on every run. */
    const noise = (length: number): Buffer => {
      const bytes = Buffer.alloc(length);
      let state = 0x2545f491;
      for (let i = 0; i < length; i++) {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        bytes[i] = state >>> 24;
      }
      return bytes;
    };
    /** Bytes of `text` with a NUL put in at `at`: eight-bit text with a stray NUL is binary. */
    const withNul = (text: Buffer, at: number): Buffer =>
      Buffer.concat([text.subarray(0, at), Buffer.alloc(1), text.subarray(at)]);
    const png = Buffer.from(
      "89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61000000017352474200aece1ce9",
      "hex",
    );

    it.each([
      ["UTF-16LE with CRLF (a Windows export)", le("Name,Value\r\nalpha,1\r\n"), "utf16le-nobom"],
      ["UTF-16BE", be("key=value\n"), "utf16be-nobom"],
      ["UTF-16LE with accents and an emoji", le("café crème 🎉 naïve\n"), "utf16le-nobom"],
      ["UTF-16LE of two characters", le("hi"), "utf16le-nobom"],
      [
        "UTF-16LE past the sniffed 8 KB, a pair cut at its edge",
        le(`${"a".repeat(4095)}🎉 tail\n`),
        "utf16le-nobom",
      ],
      ["UTF-16LE Japanese (hardly a unit ASCII)", le(JAPANESE), "utf16le-nobom"],
      ["UTF-16BE Japanese", be(JAPANESE), "utf16be-nobom"],
      [
        "UTF-16LE Japanese with CRLF, past 8 KB",
        le(JAPANESE.replaceAll("\n", "\r\n").repeat(60)),
        "utf16le-nobom",
      ],
      ["UTF-16LE Russian", le(RUSSIAN), "utf16le-nobom"],
      ["UTF-16BE Russian", be(RUSSIAN), "utf16be-nobom"],
      ["UTF-16LE Chinese", le(CHINESE), "utf16le-nobom"],
      ["UTF-16LE Greek", le(GREEK), "utf16le-nobom"],
    ])("reads %s as text and writes it back byte for byte", (_name, bytes, encoding) => {
      expect(isBinary(bytes)).toBe(false);
      const decoded = decodeText(bytes);
      expect(decoded.encoding).toBe(encoding);
      expect(roundTrips(bytes, decoded)).toBe(true);
      expect(encodeText(decoded.text, decoded.encoding)).toEqual(bytes);
    });

    it.each([
      ["a PNG header", png],
      ["gzip", gzipSync(Buffer.from("some text that is compressed ".repeat(200)))],
      ["a file of zeros", Buffer.alloc(1024)],
      ["random bytes", noise(4096)],
      [
        "random bytes with a zero high byte every other unit",
        Buffer.from(noise(4096).map((b, i) => (i % 4 === 1 ? 0 : b))),
      ],
      ["an ELF header", Buffer.from("7f454c4602010100000000000000000003003e0001000000", "hex")],
      ["little-endian 32-bit integers", Buffer.from(new Uint32Array([1, 2, 3, 400, 5000, 60000]).buffer)],
      ["UTF-32LE text without a mark", Buffer.from([0x61, 0, 0, 0, 0x62, 0, 0, 0, 0x0a, 0, 0, 0])],
      ["UTF-16LE text holding a NUL character", le("key\u0000value\n")],
      ["UTF-16LE text with an odd trailing byte", Buffer.concat([le("text\n"), Buffer.from([0x41])])],
      ["UTF-16LE text with control characters", le("a\u0001b\u0002c\u0003d\n")],
      ["UTF-16LE with a low surrogate alone", le("abc\udc00def\n")],
      ["a single NUL-padded byte", Buffer.from([0x41, 0x00])],
      ["a real PNG image", readFileSync(path.join(REPO, "docs/images/app-chat.png"))],
      ["a real ELF program (node)", readFileSync(process.execPath).subarray(0, 65536)],
      ["a real SQLite database", sqliteFile()],
      ["gzip of Japanese text", gzipSync(Buffer.from(JAPANESE.repeat(20)))],
      ["gzip of UTF-16 Japanese text", gzipSync(le(JAPANESE.repeat(20)))],
      [
        "ASCII text with a stray NUL",
        withNul(Buffer.from("hello world, this is plain text\n".repeat(8)), 40),
      ],
      [
        "ASCII text with a NUL before a space",
        withNul(Buffer.from("some words and more words\n".repeat(8)), 4),
      ],
      [
        "UTF-8 Russian with a NUL before a space (read as UTF-16 it is all Hangul)",
        withNul(Buffer.from(RUSSIAN), 2),
      ],
      ["UTF-8 Russian with a NUL after two letters", withNul(Buffer.from(RUSSIAN), 4)],
      ["UTF-8 Japanese with a stray NUL", withNul(Buffer.from(JAPANESE), 3)],
      [
        "latin1 text with a stray NUL",
        withNul(Buffer.from("café crème brûlée à la carte\n".repeat(8), "latin1"), 5),
      ],
      [
        "random bytes with a UTF-16 space and line break in them",
        Buffer.from(noise(256).map((b, i) => ([2, 10].includes(i) ? 0x20 : [3, 11].includes(i) ? 0 : b))),
      ],
    ])("still calls %s binary", (_name, bytes) => {
      expect(bytes.includes(0)).toBe(true);
      expect(isBinary(bytes)).toBe(true);
    });

    it("leaves a short mostly non-ASCII UTF-16 text to the NUL rule: too little of it to tell it from binary", () => {
      const cyrillic = le("привет мир, как дела\n");
      expect(isBinary(cyrillic)).toBe(true);
    });
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

describe("UTF-8 with stray bytes", () => {
  const utf8 = (s: string): Buffer => Buffer.from(s, "utf8");
  const raw = (...bytes: number[]): Buffer => Buffer.from(bytes);
  const join = (...parts: Buffer[]): Buffer => Buffer.concat(parts);

  it.each([
    [
      "a latin1 © pasted into a UTF-8 comment",
      join(utf8("// café crème "), raw(0xa9), utf8(" 2024\n")),
      "utf8-stray",
      "// café crème \uefa9 2024\n",
    ],
    [
      "a € cut off after two of its bytes",
      join(utf8("naïve café €"), raw(0xe2, 0x82)),
      "utf8-stray",
      "naïve café €\uefe2\uef82",
    ],
    [
      "an overlong slash (C0 AF)",
      join(utf8("é/"), raw(0xc0, 0xaf), utf8("é€")),
      "utf8-stray",
      "é/\uefc0\uefafé€",
    ],
    [
      "a UTF-16 surrogate encoded in UTF-8 (ED A0 80)",
      join(utf8("😀 ✓ é è "), raw(0xed, 0xa0, 0x80)),
      "utf8-stray",
      "😀 ✓ é è \uefed\uefa0\uef80",
    ],
    [
      "a code point past U+10FFFF (F4 90 80 80)",
      join(utf8("ü ö ä ß ø "), raw(0xf4, 0x90, 0x80, 0x80)),
      "utf8-stray",
      "ü ö ä ß ø \ueff4\uef90\uef80\uef80",
    ],
    [
      "a character past U+FFFF, then a stray byte",
      join(utf8("\u{10080} é"), raw(0xff)),
      "utf8-stray",
      "\u{10080} é\uefff",
    ],
    [
      "a BOM, then latin1 bytes",
      join(raw(0xef, 0xbb, 0xbf), raw(0x63, 0x61, 0x66, 0xe9)),
      "utf8-bom-stray",
      "caf\uefe9",
    ],
    [
      "latin1 text: no UTF-8 character at all",
      Buffer.from("Grüße, café ©\n", "latin1"),
      "latin1",
      "Grüße, café ©\n",
    ],
    [
      "more stray bytes than UTF-8 characters",
      join(Buffer.from("Grüße, café", "latin1"), utf8(" ✓")),
      "latin1",
      "Grüße, café â\u009c\u0093",
    ],
  ])("%s: decoded as %s, every byte back on encoding", (_name, bytes, encoding, text) => {
    const decoded = decodeText(bytes);
    expect(decoded).toEqual({ text, encoding });
    expect(encodeText(decoded.text, decoded.encoding)).toEqual(bytes);
    expect(roundTrips(bytes, decoded)).toBe(true);
  });

  it("notices a file that also holds, as UTF-8, a character stray bytes stand as", () => {
    const bytes = join(utf8("é è \uefa9 "), raw(0xa9));
    const decoded = decodeText(bytes);
    expect(decoded.encoding).toBe("utf8-stray");
    expect(roundTrips(bytes, decoded)).toBe(false);
  });

  it("writes new text into such a file as UTF-8, and its stray bytes as they were", () => {
    const { text, encoding } = decodeText(join(utf8("é è "), raw(0xa9), utf8("\n")));
    expect(encodeText(`${text}→ ß 😀\n`, encoding)).toEqual(
      join(utf8("é è "), raw(0xa9), utf8("\n→ ß 😀\n")),
    );
  });
});
