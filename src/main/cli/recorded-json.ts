/**
 * A column's JSON as its value, or as the text it is when it is not JSON: a row an older Lathe
 * recorded with its JSON broken (its redaction could cut into it) is still listed, as written.
 */
export function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
