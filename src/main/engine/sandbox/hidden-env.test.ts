import { describe, expect, it } from "vitest";
import { DEFAULT_HIDDEN_ENV, envNameMatcher, hiddenEnvNames, withoutHiddenEnv } from "./hidden-env.ts";

describe("the default sandbox.denyEnv", () => {
  const hides = envNameMatcher(DEFAULT_HIDDEN_ENV);

  it.each([
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GITLAB_TOKEN",
    "NPM_TOKEN",
    "NODE_AUTH_TOKEN",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AZURE_CLIENT_SECRET",
    "AZURE_STORAGE_CONNECTION_STRING",
    "GOOGLE_CREDENTIALS",
    "STRIPE_SECRET_KEY",
    "SECRET_KEY_BASE",
    "OPENAI_API_KEY",
    "SENDGRID_APIKEY",
    "POSTGRES_PASSWORD",
    "PGPASSWORD",
    "MYSQL_PWD",
    "SSH_KEY_PASSPHRASE",
    "GITHUB_APP_PRIVATE_KEY",
    "DATABASE_URL",
    "DOCKER_AUTH_CONFIG",
    "npm_config__auth",
    "npm_config_//registry.npmjs.org/:_authToken",
    "tf_var_db_password",
  ])("withholds %s", (name) => {
    expect(hides(name)).toBe(true);
  });

  it.each([
    "PATH",
    "HOME",
    "TOKENIZERS_PARALLELISM",
    "PASSWORD_STORE_DIR",
    "SECRETS_DIR",
    "SSH_AUTH_SOCK",
    "GPG_KEY",
    "GPG_TTY",
    "AWS_REGION",
    "AWS_PROFILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "KUBECONFIG",
    "TOKEN_URL",
    "LANG",
    "TERM",
  ])("leaves %s", (name) => {
    expect(hides(name)).toBe(false);
  });
});

describe("denyEnv entries", () => {
  it.each<[string[], string, boolean]>([
    [["GH_TOKEN"], "GH_TOKEN", true],
    [["GH_TOKEN"], "gh_token", true],
    [["GH_TOKEN"], "GH_TOKEN_PATH", false],
    [["GH_TOKEN"], "MY_GH_TOKEN", false],
    [["*_TOKEN"], "A/B:_TOKEN", true],
    [["ACME_*"], "ACME_", true],
    [["ACME_*"], "ACME", false],
    // Characters a regular expression would read are taken literally.
    [["A.B"], "AxB", false],
    [["A.B"], "A.B", true],
    [["(A|B)"], "A", false],
    [["*"], "PATH", true],
    [[], "GH_TOKEN", false],
  ])("%j against %s: %s", (entries, name, expected) => {
    expect(envNameMatcher(entries)(name)).toBe(expected);
  });

  it("leave the environment but the withheld, save those allowed by exact name", () => {
    const env = { GH_TOKEN: "t", NPM_TOKEN: "n", PATH: "/bin", UNSET: undefined };
    expect(withoutHiddenEnv(env, ["*_TOKEN"])).toEqual({ PATH: "/bin" });
    expect(withoutHiddenEnv(env, ["*_TOKEN"], ["GH_TOKEN"])).toEqual({ GH_TOKEN: "t", PATH: "/bin" });
    expect(withoutHiddenEnv(env, ["*_TOKEN"], ["gh_token"])).toEqual({ PATH: "/bin" });
    expect(hiddenEnvNames(env, ["*_TOKEN", "UNSET"])).toEqual(["GH_TOKEN", "NPM_TOKEN"]);
  });
});
