/** Longest piece of source quoted in a reason; the full command is always shown elsewhere. */
const MAX_SHOWN = 120;

/** Source text quoted for a human-readable reason: `"$CMD"`, and a word already in double quotes as is. */
export function shown(text: string): string {
  if (text.length > MAX_SHOWN) return `"${text.slice(0, MAX_SHOWN)}…"`;
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text : `"${text}"`;
}
