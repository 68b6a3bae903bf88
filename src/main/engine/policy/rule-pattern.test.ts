import { describe, expect, it } from "vitest";
import { compilePattern } from "./rule-pattern.ts";

// Path patterns read as a .gitignore line is: one without a slash (a trailing one aside) names a
// file or folder at any depth of the workspace, and what is below a folder of that name; one
// with a slash, or written from `./`, is anchored to the workspace root; `/…` and `~/…` are
// absolute. Values are what the policy matches: the workspace-relative path, or an absolute one.
const PATHS: Array<[string, string, boolean]> = [
  ["*.pem", "a.pem", true],
  ["*.pem", "certs/a.pem", true],
  ["*.pem", "sub/deep/b.pem", true],
  ["*.pem", "keys.pem/inner.txt", true],
  ["*.pem", "a.pem.bak", false],
  ["*.pem", "apem", false],
  ["*.pem", "/etc/ssl/private/a.pem", false],
  ["./*.pem", "a.pem", true],
  ["./*.pem", "certs/a.pem", false],
  ["**/*.pem", "a.pem", true],
  ["**/*.pem", "certs/a.pem", true],
  ["certs/*.pem", "certs/a.pem", true],
  ["certs/*.pem", "x/certs/a.pem", false],
  [".env", ".env", true],
  [".env", "src/.env", true],
  [".env", ".env/inner", true],
  [".env", ".env.local", false],
  [".env", "src/.envrc", false],
  ["./.env", ".env", true],
  ["./.env", "src/.env", false],
  ["/.env", ".env", false],
  ["secrets/", "secrets/k", true],
  ["secrets/", "app/secrets/k", true],
  ["secrets/", "secrets-old/k", false],
  ["./secrets", "secrets/k", true],
  ["./secrets", "app/secrets/k", false],
  ["config/app.json", "config/app.json", true],
  ["config/app.json", "x/config/app.json", false],
  ["{id_rsa,id_ed25519}", "home/.ssh/id_rsa", true],
  ["/w/keys/*.pem", "/w/keys/a.pem", true],
  ["/w/keys/*.pem", "keys/a.pem", false],
  ["*", "deep/any/thing", true],
  ["**", "/etc/passwd", true],
];

describe("compilePattern for paths", () => {
  it.each(PATHS)("%s matches %s: %s", (pattern, value, expected) => {
    expect(compilePattern(pattern, "path").test(value)).toBe(expected);
  });

  it("ranks an exact name above any glob, and an anchored path above a shorter name", () => {
    const spec = (p: string) => compilePattern(p, "path").specificity;
    expect(spec(".env")).toBeGreaterThan(spec("**/.env"));
    expect(spec("config/.env")).toBeGreaterThan(spec(".env"));
    expect(spec("certs/*.pem")).toBeGreaterThan(spec("*.pem"));
  });

  it("leaves commands and hosts as they were: a slash-free pattern is not a name there", () => {
    expect(compilePattern("ls", "command").test("ls")).toBe(true);
    expect(compilePattern("ls", "command").test("x ls")).toBe(false);
    expect(compilePattern("example.org", "host").test("api.example.org")).toBe(false);
  });
});
