import { describe, expect, it } from "vitest";
import { newAccessToken, readCookie, tokenMatches } from "./access-token.ts";

describe("access token", () => {
  it("is 64 random hex characters, different every time", () => {
    const a = newAccessToken();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(newAccessToken()).not.toBe(a);
  });

  it.each([
    { presented: "a".repeat(64), matches: true },
    { presented: "a".repeat(63), matches: false },
    { presented: `${"a".repeat(64)}a`, matches: false },
    { presented: "b".repeat(64), matches: false },
    { presented: "", matches: false },
    { presented: undefined, matches: false },
    { presented: ["a".repeat(64)], matches: false },
  ])("accepts only the exact token ($presented)", ({ presented, matches }) => {
    expect(tokenMatches(presented, "a".repeat(64))).toBe(matches);
  });

  it("reads one cookie out of a Cookie header", () => {
    expect(readCookie("a=1; lathe_token_80=abc; b=2", "lathe_token_80")).toBe("abc");
    expect(readCookie("xlathe_token_80=abc", "lathe_token_80")).toBeUndefined();
    expect(readCookie(undefined, "lathe_token_80")).toBeUndefined();
    expect(readCookie("garbage", "lathe_token_80")).toBeUndefined();
  });
});
