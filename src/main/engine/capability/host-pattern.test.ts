import { describe, expect, it } from "vitest";
import { hostIsDeclared, matchingHostPattern, parseHostPattern } from "./host-pattern.ts";

describe("parseHostPattern", () => {
  it.each([
    ["api.example.com", { kind: "name", host: "api.example.com" }],
    ["API.Example.COM.", { kind: "name", host: "api.example.com" }],
    ["api.example.com:8443", { kind: "name", host: "api.example.com", port: 8443 }],
    ["localhost:*", { kind: "name", host: "localhost" }],
    ["*.example.com", { kind: "suffix", host: ".example.com" }],
    ["*", { kind: "any", host: "*" }],
    ["127.0.0.1:11434", { kind: "ip", host: "127.0.0.1", port: 11434 }],
    ["127.1", { kind: "ip", host: "127.0.0.1" }],
    ["::1", { kind: "ip", host: "::1" }],
    ["[::1]:8080", { kind: "ip", host: "::1", port: 8080 }],
    ["bücher.example", { kind: "name", host: "xn--bcher-kva.example" }],
  ])("%s", (entry, expected) => {
    expect(parseHostPattern(entry)).toEqual({ text: entry, ...expected });
  });

  it.each([
    ["", /is empty/],
    ["http://api.example.com", /has a scheme/],
    ["api.example.com/path", /not a bare host/],
    ["user@api.example.com", /not a bare host/],
    ["api.example.com:0", /not a number from 1 to 65535/],
    ["api.example.com:http", /not a number from 1 to 65535/],
    ["a:b:c", /more than one colon/],
    ["[api.example.com]", /not an IPv6 address/],
    ["api*.example.com", /only \* and \*\.example\.com are wildcards/],
    ["*.*.example.com", /does not end in a domain/],
    ["*.com", /does not end in a domain with a dot/],
    ["0.0.0.0", /unspecified address/],
    ["[::]", /unspecified address/],
  ])("refuses %j", (entry, message) => {
    expect(() => parseHostPattern(entry)).toThrow(message);
  });
});

describe("matching a URL", () => {
  const url = (text: string) => new URL(text);
  it.each([
    [["127.0.0.1:*"], "http://127.0.0.1:5000/", true],
    [["127.0.0.1:*"], "http://127.0.0.12:5000/", false],
    [["127.0.0.1"], "http://0x7f.0.0.1/", true],
    [["127.0.0.1:8080"], "http://127.0.0.1:8081/", false],
    [["api.example.com"], "https://api.example.com/", true],
    [["api.example.com:443"], "https://api.example.com/", true],
    [["api.example.com:443"], "http://api.example.com/", false],
    [["api.example.com"], "https://api.example.com.evil.net/", false],
    [["*.example.com"], "https://a.b.example.com/", true],
    [["*.example.com"], "https://example.com/", false],
    [["*.example.com"], "https://notexample.com/", false],
    [["[::1]:8080"], "http://[::1]:8080/", true],
    [["*"], "http://10.0.0.1/", true],
    [["https://api.example.com"], "https://api.example.com/", false],
  ] as const)("%j lets %s through: %s", (entries, text, expected) => {
    expect(matchingHostPattern(entries, url(text)) !== undefined).toBe(expected);
  });

  it("hostIsDeclared ignores ports", () => {
    expect(hostIsDeclared(["api.example.com:8443"], "API.example.com")).toBe(true);
    expect(hostIsDeclared(["127.0.0.1:*"], "127.0.0.12")).toBe(false);
  });
});
