/** Keys whose values are secrets wherever they appear in arguments. */
const SECRET_KEY =
  /(pass(word|phrase)?|secret|token|api[_-]?key|auth(orization)?|cookie|credential|private[_-]?key|session[_-]?key)/i;

/** Secret-looking substrings in free text (commands, URLs, headers). */
const SECRET_TEXT: Array<[RegExp, string]> = [
  [
    /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    "[REDACTED PRIVATE KEY]",
  ],
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 [REDACTED]"],
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, "[REDACTED]"],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, "[REDACTED]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, "[REDACTED]"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "[REDACTED]"],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, "[REDACTED]"],
  [/(\/\/[^/\s:@]+:)[^@\s/]+@/g, "$1[REDACTED]@"],
  [
    /\b([A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|API_KEY|APIKEY|ACCESS_KEY)[A-Z0-9_]*)=("[^"]*"|'[^']*'|\S+)/g,
    "$1=[REDACTED]",
  ],
  [
    /([?&](?:access_token|token|key|api_key|apikey|password|secret|sig|signature)=)[^&\s"']+/gi,
    "$1[REDACTED]",
  ],
];

export function redactText(text: string): string {
  let out = text;
  for (const [re, replacement] of SECRET_TEXT) out = out.replace(re, replacement);
  return out;
}

/**
 * How much of a string past the cut the redaction still looks at, so a secret that straddles
 * the cut is recognised whole and masked rather than left half visible.
 */
const CUT_LOOKAHEAD_CHARS = 1024;

function redactString(text: string, maxChars: number): string {
  if (text.length <= maxChars) return redactText(text);
  const head = redactText(text.slice(0, maxChars + CUT_LOOKAHEAD_CHARS)).slice(0, maxChars);
  return `${head}…[${text.length - maxChars} more characters not recorded]`;
}

/**
 * A copy of the arguments safe to store and show: secret keys blanked, secret-looking text
 * masked, and strings longer than `maxChars` cut (so recording a call costs bounded time
 * whatever it was given, e.g. the content of a 30 MB write).
 */
export function redactSecrets(value: unknown, maxChars = Infinity, depth = 0): unknown {
  if (depth > 32) return "[TOO DEEP]";
  if (typeof value === "string") return redactString(value, maxChars);
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, maxChars, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] =
        SECRET_KEY.test(k) && (typeof v === "string" || typeof v === "number")
          ? "[REDACTED]"
          : redactSecrets(v, maxChars, depth + 1);
    }
    return out;
  }
  return value;
}
