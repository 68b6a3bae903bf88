/**
 * The invisible characters that change the order in which the text around them is displayed:
 * the embeddings and overrides (U+202A–U+202E), the isolates (U+2066–U+2069) and the marks
 * (U+200E, U+200F, U+061C). In a name shown to a person they can make `evil\u202Etxt.exe` read
 * as `evilexe.txt`; a terminal or a browser gives no sign they are there.
 */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL.source, "gu");

/** Whether the text holds a character that reorders how the text around it is displayed. */
export function hasBidiControl(text: string): boolean {
  return BIDI_CONTROL.test(text);
}

/**
 * The text with each of those characters written as its escape (`\u202e`), the rest as it is:
 * what a person reads is then the order the characters really have. Inside a JSON string the
 * escape still stands for the character, so a quoted name stays one JSON string of the real name.
 */
export function escapeBidiControls(text: string): string {
  return text.replace(
    BIDI_CONTROLS,
    (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, "0")}`,
  );
}

/**
 * A copy of a value (strings, arrays, plain objects) with every string escaped as above: for a
 * whole request or review that a dialog shows a person, so no field is forgotten.
 */
export function escapeBidiControlsDeep<T>(value: T): T {
  if (typeof value === "string") return escapeBidiControls(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => escapeBidiControlsDeep(item)) as T;
  if (typeof value === "object" && value !== null)
    // fromEntries defines each key as its own (a key `__proto__` stays a key, not a prototype).
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [escapeBidiControls(key), escapeBidiControlsDeep(item)]),
    ) as T;
  return value;
}

/** Whether any string of a value (keys included) holds a reordering character. */
export function hasBidiControlDeep(value: unknown): boolean {
  if (typeof value === "string") return hasBidiControl(value);
  if (Array.isArray(value)) return value.some(hasBidiControlDeep);
  if (typeof value === "object" && value !== null)
    return Object.entries(value).some(([key, item]) => hasBidiControl(key) || hasBidiControlDeep(item));
  return false;
}
