import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { parseTimeBound, TIME_FORMS } from "./time-bound.ts";

const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);

describe("parseTimeBound: what --since and --until accept", () => {
  it.each([
    ["10m", NOW - 10 * 60_000],
    ["90s", NOW - 90_000],
    ["2h", NOW - 2 * 3_600_000],
    ["3d", NOW - 3 * 86_400_000],
    ["1w", NOW - 7 * 86_400_000],
    ["0m", NOW],
    [" 2h ", NOW - 2 * 3_600_000],
    ["2025-06-01", Date.UTC(2025, 5, 1)],
    ["2025-06-01T10:02", Date.UTC(2025, 5, 1, 10, 2)],
    ["2025-06-01 10:02:11", Date.UTC(2025, 5, 1, 10, 2, 11)],
    ["2025-06-01T10:02:11.5", Date.UTC(2025, 5, 1, 10, 2, 11, 500)],
    ["2025-06-01T10:02:11.123Z", Date.UTC(2025, 5, 1, 10, 2, 11, 123)],
    ["2025-06-01t10:02:11z", Date.UTC(2025, 5, 1, 10, 2, 11)],
    ["2025-06-01T12:02:11+02:00", Date.UTC(2025, 5, 1, 10, 2, 11)],
    ["2025-06-01T05:32:11-0430", Date.UTC(2025, 5, 1, 10, 2, 11)],
    ["2024-02-29", Date.UTC(2024, 1, 29)],
  ])("%j is %d", (input, expected) => {
    expect(parseTimeBound(input, NOW)).toBe(expected);
  });

  it.each([
    ["", "nothing"],
    ["yesterday", "a word"],
    ["10", "a number without a unit"],
    ["10 m", "a space before the unit"],
    ["10min", "a unit spelled out"],
    ["2y", "years"],
    ["-2h", "a negative time ago"],
    ["1.5h", "a fraction"],
    ["2025-02-30", "a day February does not have"],
    ["2023-02-29", "a leap day of a common year"],
    ["2025-13-01", "month 13"],
    ["2025-06-01T24:00", "hour 24"],
    ["2025-06-01T10:60", "minute 60"],
    ["2025-06-01T10", "an hour without minutes"],
    ["2025-06-01Z", "a zone without a time"],
    ["2025-06-01T10:00+25:00", "an offset past a day"],
    ["June 1, 2025", "a date as prose (Date.parse takes it)"],
    ["1717236000000", "milliseconds since the epoch"],
    ["2025-6-1", "a month and day without their zero"],
  ])("refuses %j (%s), naming the forms it accepts", (input) => {
    expect(() => parseTimeBound(input, NOW)).toThrow(InvalidArgumentError);
    expect(() => parseTimeBound(input, NOW)).toThrow(
      `"${input}" is not a time Lathe understands. ${TIME_FORMS}`,
    );
  });
});
