import { isSecretName, isSecretVariable } from "./secret-name.ts";

/** What stands in for a masked secret wherever Lathe shows or stores text. */
export const MASK = "[REDACTED]";

/**
 * Whether a value looks made by a machine rather than written as a word: a digit, a capital
 * inside it, or base64's marks. "Basic dXNlcjpwYXNz" is a credential; "Basic understanding" and
 * "a token representing…" are prose, and stay as they are.
 */
function looksGenerated(value: string): boolean {
  return /\d/.test(value) || /[+/=]/.test(value) || (/.[A-Z]/.test(value) && /[a-z]/.test(value));
}

/** A credential's characters (base64, base64url, JWT, hex, the vendors' token alphabets). */
const TOKEN_CHARS = "[A-Za-z0-9._~+/=-]";

/** Strip the quotes a shell value may carry, to test what is inside. */
const unquoted = (value: string): string => value.replace(/^["']|["']$/g, "");

type Rule = [RegExp, (match: string, ...groups: string[]) => string];

/**
 * Secret-looking substrings of free text (commands, URLs, headers, config text), most specific
 * first. Each rule names what it masks and leaves the rest of the text as it was.
 */
const RULES: Rule[] = [
  // A PEM private key, to its end line (or to the end of the text when that was cut off).
  [
    /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    () => "[REDACTED PRIVATE KEY]",
  ],
  // Vendors' token shapes: OpenAI and Anthropic, Stripe, GitHub, GitLab, npm, Hugging Face,
  // Slack, AWS key ids, Google API keys, JWTs.
  // (sk-… only when it has a digit or a long random run: "sk-learn-preprocessing" is a name.)
  [/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, (m) => (/\d|[A-Za-z]{16}/.test(m) ? MASK : m)],
  [/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g, () => MASK],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, () => MASK],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, () => MASK],
  [/\bglpat-[A-Za-z0-9_-]{20,}/g, () => MASK],
  [/\bnpm_[A-Za-z0-9]{30,}/g, () => MASK],
  [/\bhf_[A-Za-z0-9]{30,}/g, () => MASK],
  [/\bxox[abprse]-[A-Za-z0-9-]{10,}/g, () => MASK],
  [/\bAKIA[0-9A-Z]{16}\b/g, () => MASK],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, () => MASK],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, () => MASK],
  // An Authorization scheme and its credential: "Bearer …", "Basic …", "token …".
  [
    new RegExp(`\\b(Bearer|Basic|Token)(\\s+)(${TOKEN_CHARS}{8,})`, "gi"),
    (m, scheme, space, value) => (looksGenerated(value) ? `${scheme}${space}${MASK}` : m),
  ],
  // A password in a URL: scheme://user:password@host.
  [/(\/\/[^/\s:@"'<>]+:)[^@\s/"'<>]+@/g, (_m, user) => `${user}${MASK}@`],
  // curl's -u/--user user:password.
  [/((?:^|\s)(?:-u|--user)(?:\s+|=)["']?[^:\s"']+:)[^\s"']+/g, (_m, user) => `${user}${MASK}`],
  // A query parameter named for a credential: ?access_token=…, &api-key=…, &sig=….
  [
    /([?&;]([A-Za-z0-9_.-]+)=)[^&\s"'#]+/g,
    (m, head, name) => (isSecretName(name) || /^(key|sig|signature)$/i.test(name) ? `${head}${MASK}` : m),
  ],
  // A shell variable named for a credential: GITHUB_TOKEN=…, export db_password='…'.
  [
    /\b([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|[^\s"'&;|)]+)/g,
    (m, name, value) => (isSecretVariable(name) && unquoted(value) !== MASK ? `${name}=${MASK}` : m),
  ],
  // A flag named for a credential: --password=…, --api-key …, --token ….
  [
    /(--([A-Za-z][A-Za-z0-9-]*))(=|\s+)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)/g,
    (m, flag, name, sep, value) =>
      isSecretName(name) && (sep === "=" || looksGenerated(unquoted(value))) ? `${flag}${sep}${MASK}` : m,
  ],
  // A header or setting named for a credential: "X-Api-Key: …", "password": "…", api_key = '…'.
  [
    // (The name starts where a word does: tried at every letter, a long word took quadratic time.)
    new RegExp(
      `(["']?)(?<![A-Za-z0-9_-])([A-Za-z][A-Za-z0-9_-]*)\\1(\\s*[:=]\\s*)(["']?)(${TOKEN_CHARS}{6,})`,
      "g",
    ),
    (m, q, name, sep, vq, value) =>
      isSecretName(name) && (vq !== "" || looksGenerated(value)) ? `${q}${name}${q}${sep}${vq}${MASK}` : m,
  ],
];

/**
 * `text` with every occurrence of each of `values` masked: secrets Lathe itself holds (an API key
 * it sent), whatever their shape, which a server may echo back in an error. Values shorter than 4
 * characters are left alone: masking them would garble the text around them and hide nothing.
 */
export function maskValues(text: string, values: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const value of values) {
    if (value !== undefined && value.length >= 4) out = out.split(value).join(MASK);
  }
  return out;
}

export function redactText(text: string): string {
  let out = text;
  for (const [re, replace] of RULES) out = out.replace(re, replace as (m: string, ...g: unknown[]) => string);
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
 * A copy of a value safe to store and show (a call's arguments, its decisions, its envelope):
 * values under credential names blanked (see isSecretName), secret-looking text masked, and
 * strings longer than `maxChars` cut (so recording a call costs bounded time whatever it was
 * given, e.g. the content of a 30 MB write). Redacting the value rather than its JSON text keeps
 * that text JSON whatever a rule masks.
 */
export function redactSecrets(value: unknown, maxChars = Infinity, depth = 0): unknown {
  if (depth > 32) return "[TOO DEEP]";
  if (typeof value === "string") return redactString(value, maxChars);
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, maxChars, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] =
        isSecretName(k) && (typeof v === "string" || typeof v === "number")
          ? MASK
          : redactSecrets(v, maxChars, depth + 1);
    }
    return out;
  }
  return value;
}
