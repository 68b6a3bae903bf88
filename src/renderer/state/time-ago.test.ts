import { describe, expect, it } from "vitest";
import { timeAgo } from "./time-ago.ts";

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

describe("time ago", () => {
  it.each([
    [10_000, "just now"],
    [5 * 60_000, "5 min ago"],
    [3 * 3_600_000, "3 h ago"],
    [26 * 3_600_000, "yesterday"],
    [3 * 86_400_000, "3 days ago"],
  ])("%i ms ago is %s", (ago, text) => {
    expect(timeAgo(NOW - ago, NOW)).toBe(text);
  });

  it("gives a date beyond a week", () => {
    expect(timeAgo(NOW - 30 * 86_400_000, NOW)).toMatch(/\d/);
    expect(timeAgo(Date.UTC(2024, 0, 2), NOW)).toMatch(/2024/);
  });
});
