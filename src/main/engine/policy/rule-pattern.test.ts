import { describe, expect, it } from "vitest";
import { compilePattern, valueKeys } from "./rule-pattern.ts";

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

// A ruleset looks up the rules that may match a value by key (rule-index.ts) instead of trying
// them all: a pattern's key must be among the keys of every value it matches, or a rule that
// matches would never be tried and a deny would silently stop denying. Every pattern here is
// tried, as each kind, on every value.
const KEYED_PATTERNS = [
  "src/**",
  "src/*.ts",
  "src/**/",
  "src/a.ts",
  "src",
  "src/",
  "/etc/**",
  "/etc/passwd",
  "/*",
  "/",
  "~/x/*",
  "~",
  "*.pem",
  ".env",
  "secrets/",
  "*.tar.gz",
  "{id_rsa,id_ed25519}",
  "!src/**",
  "src/a+(b)",
  "src/@(a|b)/x",
  "a/{b,c}/x",
  "a|b/*",
  "a^b/*",
  "a$b/*",
  "src/[ab]/x",
  "src/\\*x",
  "**/*.ts",
  "x?/y",
  "./a.pem",
  "./*.pem",
  "src:*",
  ".",
  "*",
  "**",
  "git log *",
  "git log:*",
  "npm run test:*",
  "ls -la",
  "git*",
  "git [x]",
  "git ?og",
  "rm -rf /*",
  " x *",
  "git  log *",
  "*.example.com",
  "Example.COM",
  "api.*",
  "a?.x.org",
  "*.EXAMPLE.com",
  "*.[x].org",
  "*a.b",
];
const KEYED_VALUES = [
  "src",
  "src/a.ts",
  "src/b/c.ts",
  "src/*",
  "src/*x",
  "src/abb",
  "src/a/x",
  "src/b/x",
  "srcfoo",
  "src:x",
  "lib/x",
  "a.pem",
  "certs/x.pem",
  ".pem",
  "keys.pem/inner",
  "x.tar.gz",
  ".env",
  "app/.env",
  "app/secrets/k",
  "home/.ssh/id_rsa",
  "a/b/x",
  "a/c/x",
  "a|b/c",
  "a^b/c",
  "a$b/c",
  "x1/y",
  "/etc/passwd",
  "/etc",
  "/a",
  "/",
  "/home/u/x/y",
  "git log",
  "git log --oneline",
  "git logs",
  "gitx",
  "git  log x",
  "npm run test",
  "npm run test:unit",
  "ls -la",
  "git [x]",
  "git xog",
  "rm -rf /tmp",
  " x y",
  "a.example.com",
  "example.com",
  "EXAMPLE.com",
  ".example.com",
  "api.x",
  "ab.x.org",
  "A.EXAMPLE.COM",
  "x.[x].org",
  "xa.b",
  "a.b",
];

describe("pattern keys", () => {
  const kinds = ["path", "command", "host"] as const;
  const cases = kinds.flatMap((kind) =>
    KEYED_PATTERNS.flatMap((pattern) => KEYED_VALUES.map((value) => [kind, pattern, value] as const)),
  );

  it("every value a pattern matches has the pattern's key", () => {
    const missed = cases.filter(([kind, pattern, value]) => {
      const compiled = compilePattern(pattern, kind);
      return (
        compiled.test(value) && compiled.key !== undefined && !valueKeys(value, kind).includes(compiled.key)
      );
    });
    expect(missed).toEqual([]);
  });

  it.each([
    ["src/mod1/**/*.ts", "path"],
    ["src/file1.ts", "path"],
    ["*.pem", "path"],
    [".env", "path"],
    ["git log *", "command"],
    ["npm run task1:*", "command"],
    ["ls -la", "command"],
    ["*.example.com", "host"],
    ["example.com", "host"],
  ] as const)("%s (%s) has a key, so it is not tried on every value", (pattern, kind) => {
    expect(compilePattern(pattern, kind).key).toBeDefined();
  });
});
