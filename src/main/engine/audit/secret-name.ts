import { DEFAULT_HIDDEN_ENV, envNameMatcher } from "../sandbox/hidden-env.ts";

/**
 * Whether a name (an argument's key, a header, a flag, a query parameter) says its value is a
 * credential. The name is read as words (`apiKey`, `X-Api-Key`, `client_secret`, `_authToken`):
 * a word that is a credential (`password`, `token`, `authorization`…, or one ending so, such as
 * `authtoken`), or a pair such as api + key. Words that only resemble one stay: `author`,
 * `compass`, `bypass`, `max_tokens`, and names of things about a credential rather than the
 * credential itself (`token_count`, `password_file`, `token_url`).
 */
export function isSecretName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.some((w) => ABOUT_A_SECRET.has(w))) return false;
  for (const [i, word] of words.entries()) {
    if (SECRET_WORDS.has(word) || SECRET_SUFFIXES.some((s) => word.endsWith(s))) return true;
    const next = words[i + 1];
    if (next === "key" && KEY_KINDS.has(word)) return true;
  }
  return false;
}

/** Words that are a credential on their own. */
const SECRET_WORDS = new Set([
  "pass",
  "auth",
  "authorization",
  "cookie",
  "cookies",
  "secrets",
  "credential",
  "credentials",
  "passwords",
]);

/** Endings of a word that make it a credential: `token`, `authtoken`, `dbpassword`, `xapikey`. */
const SECRET_SUFFIXES = ["password", "passwd", "passphrase", "secret", "token", "apikey", "privatekey"];

/** The X in "X key" that makes the key a credential. */
const KEY_KINDS = new Set([
  "api",
  "private",
  "secret",
  "session",
  "access",
  "signing",
  "encryption",
  "master",
]);

/** Words that make the name one of a fact about a credential (its size, file, kind), not the credential. */
const ABOUT_A_SECRET = new Set([
  "count",
  "counts",
  "limit",
  "max",
  "min",
  "length",
  "usage",
  "budget",
  "file",
  "path",
  "dir",
  "url",
  "uri",
  "endpoint",
  "type",
  "kind",
  "name",
  "id",
  "env",
  "expires",
  "expiry",
  "ttl",
  "required",
  "enabled",
]);

/**
 * Whether a shell variable's name says it holds a credential: the names bash is started without
 * (DEFAULT_HIDDEN_ENV, any case), and the bare words such a name ends with.
 */
export const isSecretVariable = envNameMatcher([
  ...DEFAULT_HIDDEN_ENV,
  "TOKEN",
  "*_AUTH_TOKEN",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "SECRET",
  "API_KEY",
  "APIKEY",
  "ACCESS_KEY",
  "PRIVATE_KEY",
]);
