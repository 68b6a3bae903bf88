import { redactText } from "../audit/redact.ts";
import { isSecretName, isSecretVariable } from "../audit/secret-name.ts";
import { variableEffect } from "../policy/shell/sensitive-variables.ts";

/**
 * Values that cannot hold a credential's randomness: nothing, a number or version, words
 * without a digit, a capital inside them or an underscore joining them (`debug`, `two words`,
 * `Info`; not `secret_abc`), a path, or a URL whose path is made of plain lowercase words
 * (`http://localhost:11434`, `https://x.dev/api`).
 */
const HARMLESS_SHAPES: readonly RegExp[] = [
  /^$/,
  /^\d{1,10}(\.\d{1,10}){0,3}$/,
  /^[A-Za-z]?[a-z]*(?:[ .,:-][A-Za-z]?[a-z]*)*$/,
  /^(?:~|\.{1,2})?\/[^\s:@?#;&|$`'"]*$/,
  /^[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?(?:\/[a-z._~-]*)*$/,
];

/** Whether a name has the word KEY in it (`NOTION_KEY`, `stripeKey`; not `KEYBOARD`, `MONKEY`). */
function namesAKey(name: string): boolean {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((word) => word === "key" || word === "keys");
}

/** The longest value shown for its shape alone: past it, a "word" is more likely a passphrase. */
const MAX_HARMLESS_CHARS = 64;

/**
 * How the value of an MCP server's environment variable is shown in its command line (the
 * "starting MCP server" line, its log, the app's extensions panel, `lathe trust`'s review):
 *  - under a credential's name (`GITHUB_TOKEN`, `MY_PASSWORD`, `DATABASE_URL`, any `*_KEY`): masked;
 *  - a variable that changes what runs (`NODE_OPTIONS`, `LD_PRELOAD`, `PATH`, `PYTHON*`): shown,
 *    with secret-looking parts masked, because a person approving the server must see it;
 *  - a value of a plainly harmless shape (see HARMLESS_SHAPES): shown;
 *  - anything else (`NOTION_KEY=secret_…`, an opaque id, a URL with a password or a token in
 *    its path): masked, since its name does not say it is no secret.
 * The server's pin covers the real values, so a masked value that changes is still noticed.
 * Returns undefined for a value to mask.
 */
export function shownEnvValue(name: string, value: string): string | undefined {
  if (isSecretVariable(name) || isSecretName(name) || namesAKey(name)) return undefined;
  if (variableEffect(name, { text: value, literal: true }) !== undefined) return redactText(value);
  if (value.length <= MAX_HARMLESS_CHARS && HARMLESS_SHAPES.some((shape) => shape.test(value))) return value;
  return undefined;
}
