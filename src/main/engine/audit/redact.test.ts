import { describe, expect, it } from "vitest";
import { redactSecrets, redactText } from "./redact.ts";

describe("redactSecrets", () => {
  it.each([
    [
      "a bearer header",
      'curl -H "Authorization: Bearer abcdefghijklmnop123" https://x',
      "abcdefghijklmnop123",
    ],
    ["an OpenAI-style key", "OPENAI=sk-proj-abcdefghijklmnopqrstu", "sk-proj-abcdefghijklmnopqrstu"],
    [
      "a GitHub token",
      "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/x",
      "ghp_abcdefghijklmnopqrstuvwxyz0123",
    ],
    ["an AWS key id", "aws AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP"],
    ["an env assignment", "API_TOKEN=hunter2hunter2 npm publish", "hunter2hunter2"],
    ["a password in a URL", "psql postgres://me:s3cretpw@db/x", "s3cretpw"],
    ["a token query parameter", "curl https://x/y?access_token=zzz999", "zzz999"],
    ["a private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----", "AAAA"],
    // Real key shapes that used to pass through.
    [
      "a Stripe secret key",
      "stripe charges --api sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
      "sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
    ],
    [
      "a fine-grained GitHub token",
      "git clone https://github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz@github.com/x",
      "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz",
    ],
    [
      "a GitLab token in a header",
      "curl -H 'PRIVATE-TOKEN: glpat-abcdefghij1234567890' x",
      "glpat-abcdefghij1234567890",
    ],
    [
      "an npm token in npm's config",
      "npm config set //registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123",
      "npm_abcdefghijklmnopqrstuvwxyz0123",
    ],
    [
      "a Hugging Face token",
      "HF_HUB=hf_abcdefghijklmnopqrstuvwxyzABCD python x",
      "hf_abcdefghijklmnopqrstuvwxyzABCD",
    ],
    ["a lower-case variable", "export github_token=ghx1234567890abcdef", "ghx1234567890abcdef"],
    ["a quoted variable", "DB_PASSWORD='correct horse battery' psql", "correct horse battery"],
    ["curl's -u", "curl -u admin:hunter2secret https://example.com", "hunter2secret"],
    ["a --password= flag", "mysql --password=hunter2secret -u root", "hunter2secret"],
    ["a --token flag", "gh auth login --token a1b2c3d4e5f6a7b8", "a1b2c3d4e5f6a7b8"],
    [
      "an API-key header",
      "curl -H 'X-Api-Key: 0123456789abcdef0123456789' https://x",
      "0123456789abcdef0123456789",
    ],
    ["an api-key query parameter", "curl https://x/y?api-key=abcd1234567890", "abcd1234567890"],
    ["a JWT", "echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl", "eyJhbGciOiJIUzI1NiJ9"],
    ["a Basic credential", "Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"],
    ["a password in JSON text", '{"password": "swordfish-42"}', "swordfish-42"],
    [
      "a private key cut off before its end",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA",
      "MIIEpAIBAAKCAQEA",
    ],
  ])("masks %s in text", (_name, text, secret) => {
    const out = redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toContain("REDACTED");
  });

  it("blanks values under secret-looking keys at any depth and leaves the rest", () => {
    const out = redactSecrets({
      path: "a.txt",
      headers: { Authorization: "xyz", accept: "json" },
      apiKey: 42,
    });
    expect(out).toEqual({
      path: "a.txt",
      headers: { Authorization: "[REDACTED]", accept: "json" },
      apiKey: "[REDACTED]",
    });
  });

  it("cuts long strings to a bounded head and says how much was left out", () => {
    const out = redactSecrets({ content: "x".repeat(10_000), path: "a.txt" }, 100) as Record<string, string>;
    expect(out.path).toBe("a.txt");
    expect(out.content).toBe(`${"x".repeat(100)}…[9900 more characters not recorded]`);
  });

  it("masks a secret that straddles the cut instead of leaving its start visible", () => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123";
    const text = `${"x".repeat(95)} ${token} ${"y".repeat(1000)}`;
    const out = redactSecrets(text, 100) as string;
    expect(out).not.toContain("ghp_a");
    expect(out.startsWith(`${"x".repeat(95)} [RED`)).toBe(true);
    // The same text with no cut really shows the token's start at that place: the cut mattered.
    expect(text.slice(0, 100)).toContain("ghp_");
  });

  it.each([
    "git log --oneline -5 && npm test",
    "The Basic understanding of tokens",
    'grep -rn "a token representing the user" src',
    "Token expiration is handled by refresh()",
    "pip install sk-learn-preprocessing-thing",
    "PASSWORD_STORE_DIR=~/.pw pass show x",
    "TOKENIZERS_PARALLELISM=false python train.py",
    "cat --password-file ~/.pw",
    "see https://user@example.com:8080/path and mailto:x@y",
    "ssh git@github.com:org/repo.git",
    "echo //host:8080/x ok user@mail",
    "curl 'https://example.com/search?q=keys&page=2'",
    '{"max_tokens": 512, "author": "Jane Doe"}',
  ])("leaves ordinary text alone: %s", (text) => {
    expect(redactText(text)).toBe(text);
  });

  it.each([
    ["max_tokens", 512],
    ["maxTokens", 512],
    ["token_count", 12],
    ["author", "Jane Doe"],
    ["authored_by", "Jane"],
    ["compass", "north"],
    ["bypass", "cache"],
    ["passes", 3],
    ["keyword", "lathe"],
    ["password_file", "/etc/pw"],
  ])("keeps the value of the key %s, which names no credential", (key, value) => {
    expect(redactSecrets({ [key]: value })).toEqual({ [key]: value });
  });

  it.each([
    "password",
    "apiKey",
    "X-Api-Key",
    "client_secret",
    "_authToken",
    "PRIVATE-TOKEN",
    "cookie",
    "auth",
  ])("blanks the value of the key %s", (key) => {
    expect(redactSecrets({ [key]: "plain-value" })).toEqual({ [key]: "[REDACTED]" });
  });
});

describe("redactSecrets on adversarial text", () => {
  // Each took from 40 s to over a minute when a rule was tried at every letter of a long word,
  // stalling the call's recording (and the event loop) for that long.
  it.each([
    ["one 120 KB word", "a".repeat(120_000)],
    ["a long word before =", `${"x".repeat(60_000)}=`],
    ["a long flag", `--${"a".repeat(60_000)}`],
    ["a long word before :", `${"k".repeat(60_000)}: value123`],
    ["many short words", "echo lorem ipsum ".repeat(8_000)],
  ])("takes linear time: %s", (_name, text) => {
    const started = performance.now();
    redactSecrets({ command: text }, 64 * 1024);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
