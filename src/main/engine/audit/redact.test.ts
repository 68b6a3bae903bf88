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

  it("leaves ordinary commands alone", () => {
    expect(redactText("git log --oneline -5 && npm test")).toBe("git log --oneline -5 && npm test");
  });
});
