/**
 * Environment variables that usually hold a credential's value: the tokens of GitHub, npm,
 * Hugging Face and CI systems, cloud keys (AWS's secret key and session token, Azure's client
 * secret and connection strings), API keys, database passwords. Every process Lathe starts for
 * a model or an extension (bash, plugin commands, stdio MCP servers) starts without the ones set
 * in Lathe's own environment, unless the user's `sandbox.denyEnv` says otherwise: `env` or
 * `echo $GH_TOKEN` in a command a README talked the model into would otherwise copy them into
 * the workspace, and out with the next commit.
 *
 * An entry is a name, or a pattern where `*` stands for any characters; either matches a whole
 * name, ignoring case (`tf_var_db_password`, npm's `npm_config_//host/:_authToken`). The patterns
 * are the suffixes credential variables are named with, so that words merely containing them
 * stay: `TOKENIZERS_PARALLELISM`, `PASSWORD_STORE_DIR` (a path; the store itself is in
 * DEFAULT_HIDDEN_SECRETS), `SSH_AUTH_SOCK` (a socket's path), `KEY`-ending names in general
 * (`*_KEY` would take `GPG_KEY` ids and signing-key names that hold no secret). Names that no
 * suffix catches but hold a secret by convention are listed as they are.
 */
export const DEFAULT_HIDDEN_ENV: readonly string[] = [
  // GH_TOKEN, GITHUB_TOKEN, NPM_TOKEN, NODE_AUTH_TOKEN, HF_TOKEN, AWS_SESSION_TOKEN, VAULT_TOKEN…
  "*_TOKEN",
  // npm's per-registry `npm_config_//registry.npmjs.org/:_authToken`.
  "*_AUTHTOKEN",
  // CLIENT_SECRET, AZURE_CLIENT_SECRET, STRIPE_SECRET_KEY, AWS_SECRET_ACCESS_KEY, SECRET_KEY_BASE.
  "*_SECRET",
  "*_SECRET_*",
  "SECRET_*",
  // AWS_ACCESS_KEY_ID (half of a pair), *_ACCESS_KEY of object stores.
  "*_ACCESS_KEY",
  "*_ACCESS_KEY_ID",
  // OPENAI_API_KEY, GOOGLE_API_KEY, DD_API_KEY, SENDGRID_APIKEY.
  "*_API_KEY",
  "*_APIKEY",
  // DB_PASSWORD, POSTGRES_PASSWORD, TWINE_PASSWORD, SSH_KEY_PASSPHRASE.
  "*_PASSWORD",
  "*_PASSWD",
  "*_PASSPHRASE",
  // SSH_PRIVATE_KEY, GITHUB_APP_PRIVATE_KEY, GPG_PRIVATE_KEY.
  "*_PRIVATE_KEY",
  // GOOGLE_CREDENTIALS (a service account's JSON key itself, as Terraform reads it).
  "*_CREDENTIALS",
  // AZURE_STORAGE_CONNECTION_STRING (holds the storage account's key).
  "*_CONNECTION_STRING",
  // Conventional names no suffix above catches.
  "PGPASSWORD",
  "MYSQL_PWD",
  "REDISCLI_AUTH",
  "DATABASE_URL",
  "NPM_CONFIG__AUTH",
  "DOCKER_AUTH_CONFIG",
];

/**
 * The test of a name against entries of `sandbox.denyEnv` (names and `*` patterns, whole name,
 * any case). Not picomatch: a variable name is not a path, and `*` must cross the `/` in npm's
 * per-registry names.
 */
export function envNameMatcher(entries: readonly string[]): (name: string) => boolean {
  if (entries.length === 0) return () => false;
  const alternatives = entries.map((entry) =>
    entry
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
      .join(".*"),
  );
  const pattern = new RegExp(`^(?:${alternatives.join("|")})$`, "is");
  return (name) => pattern.test(name);
}

/**
 * `env` without the variables `hidden` withholds (names and patterns, see envNameMatcher), save
 * those `allow` names exactly (an MCP server's own `allowEnv`); unset variables are dropped.
 */
export function withoutHiddenEnv(
  env: Readonly<Record<string, string | undefined>>,
  hidden: readonly string[],
  allow: readonly string[] = [],
): Record<string, string> {
  const hides = envNameMatcher(hidden);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && (allow.includes(name) || !hides(name))) out[name] = value;
  return out;
}

/** The names of the variables set in `env` that `hidden` withholds, sorted: never their values. */
export function hiddenEnvNames(
  env: Readonly<Record<string, string | undefined>>,
  hidden: readonly string[],
): string[] {
  const hides = envNameMatcher(hidden);
  return Object.keys(env)
    .filter((name) => env[name] !== undefined && hides(name))
    .sort();
}
