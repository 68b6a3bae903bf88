/**
 * One part of a tool's result as the workbench shows it: a short value on a line with its name,
 * or a text (a command's output, a file, a list) drawn as lines under its name.
 */
export type EnvelopeField =
  { kind: "value"; name: string; text: string } | { kind: "text"; name: string; text: string };

/** Longer than this (or with a newline), a string is a text of its own rather than a value. */
const SHORT = 120;

function field(name: string, value: unknown): EnvelopeField {
  if (typeof value === "string")
    return value.includes("\n") || value.length > SHORT
      ? { kind: "text", name, text: value }
      : { kind: "value", name, text: value };
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string"))
    return { kind: "text", name, text: value.join("\n") };
  const json = JSON.stringify(value, null, 2) ?? String(value);
  return json.includes("\n") || json.length > SHORT
    ? { kind: "text", name, text: json }
    : { kind: "value", name, text: json };
}

/**
 * An envelope's data as fields a person reads: each property of an object on its own (its
 * strings as text with their newlines, a list of strings one per line, anything else as JSON),
 * or the whole data as one field named `name` when it is not an object.
 */
export function envelopeFields(data: unknown, name = "data"): EnvelopeField[] {
  if (typeof data === "object" && data !== null && !Array.isArray(data))
    return Object.entries(data).map(([key, value]) => field(key, value));
  return [field(name, data)];
}
