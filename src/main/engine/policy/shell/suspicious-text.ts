/**
 * Characters that make a command read differently from what the shell runs: invisible and
 * format characters, bidirectional overrides, odd spaces and control characters anywhere in the
 * source, and non-ASCII lookalikes where they name a program.
 */

const NAMES: Readonly<Record<number, string>> = {
  0x0000: "null",
  0x0008: "backspace",
  0x000b: "vertical tab",
  0x000c: "form feed",
  0x000d: "carriage return",
  0x001b: "escape",
  0x007f: "delete",
  0x00a0: "no-break space",
  0x00ad: "soft hyphen",
  0x034f: "combining grapheme joiner",
  0x061c: "Arabic letter mark",
  0x115f: "Hangul choseong filler",
  0x1160: "Hangul jungseong filler",
  0x180e: "Mongolian vowel separator",
  0x200b: "zero-width space",
  0x200c: "zero-width non-joiner",
  0x200d: "zero-width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x2028: "line separator",
  0x2029: "paragraph separator",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2060: "word joiner",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0x2800: "Braille blank",
  0x3000: "ideographic space",
  0x3164: "Hangul filler",
  0xfeff: "zero-width no-break space (byte order mark)",
  0xffa0: "halfwidth Hangul filler",
};

/**
 * Control characters except tab and newline, format characters (zero-width, bidi, tags), every
 * space other than U+0020, line/paragraph separators, blank fillers, and the invisible
 * combining marks (grapheme joiner, Khmer and Mongolian invisibles, variation selectors).
 */
const HIDDEN =
  /[[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\u115f\u1160\u2800\u3164\uffa0]--[\t\n ]]|\u034f|[\u17b4\u17b5]|[\u180b-\u180f]|[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}]/gv;

const MAX_REPORTED = 3;

/** `U+200B` style code point label. */
function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

function describe(char: string): string {
  const name = NAMES[char.codePointAt(0) ?? -1];
  return name === undefined ? codePoint(char) : `${codePoint(char)} (${name})`;
}

const PICTOGRAPH_BEFORE = /\p{Extended_Pictographic}(?:[\u{1f3fb}-\u{1f3ff}]|\ufe0f)?$/u;
const PICTOGRAPH_AFTER = /^\p{Extended_Pictographic}/u;

/**
 * The zero-width joiner and presentation selectors inside an emoji (`👨‍👩‍👧`, `✔️`) are part
 * of a visible picture, not hidden text; commit messages are full of them.
 */
function isEmojiJoiner(source: string, index: number, char: string): boolean {
  if (char !== "\u200d" && char !== "\ufe0e" && char !== "\ufe0f") return false;
  const before = PICTOGRAPH_BEFORE.test(source.slice(Math.max(0, index - 4), index));
  if (char !== "\u200d") return before;
  return before && PICTOGRAPH_AFTER.test(source.slice(index + 1, index + 3));
}

/**
 * Reasons for every invisible, format or control character in `source` (tab and newline are
 * fine). `subject` names the source in the reasons ("the command", "the shell code … runs").
 */
export function hiddenCharacterReasons(source: string, subject = "the command"): string[] {
  const reasons: string[] = [];
  let count = 0;
  for (const match of source.matchAll(HIDDEN)) {
    const char = match[0];
    if (isEmojiJoiner(source, match.index, char)) continue;
    count++;
    if (count <= MAX_REPORTED) {
      reasons.push(
        `${subject} contains the invisible or control character ${describe(char)} at character ${match.index}, which can make it run something other than what it shows`,
      );
    }
  }
  if (count > MAX_REPORTED) {
    reasons.push(`${subject} contains ${count - MAX_REPORTED} more invisible or control characters`);
  }
  return reasons;
}

/** Why a command name is suspicious: any non-ASCII character can imitate an ASCII letter. */
export function commandNameReason(name: string): string | undefined {
  const match = /[^\x20-\x7e]/u.exec(name);
  if (match === null) return undefined;
  const char = match[0];
  const shown = /[\p{L}\p{N}\p{P}\p{S}]/u.test(char) ? `"${char}" (${describe(char)})` : describe(char);
  return `the command name "${name}" contains the non-ASCII character ${shown}, which can imitate an ASCII letter, so it may not be the program it looks like`;
}

/** Fullwidth forms of ASCII (U+FF01–U+FF5E) look like operators and letters but are ordinary characters. */
export function fullwidthReason(text: string): string | undefined {
  const match = /[\uff01-\uff5e]/u.exec(text);
  if (match === null) return undefined;
  const char = match[0];
  const ascii = String.fromCharCode(char.charCodeAt(0) - 0xfee0);
  return `the command contains the fullwidth character "${char}" (${codePoint(char)}) outside quotes; it looks like "${ascii}" but the shell treats it as an ordinary character`;
}
