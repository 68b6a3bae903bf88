/**
 * The start of what a server sent, as one short line for a message: markup, scripts and styles
 * of a web page dropped, white space collapsed, at most 120 characters.
 */
export function answerSnippet(text: string): string {
  const flat = text
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}
