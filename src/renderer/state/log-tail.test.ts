import { describe, expect, it } from "vitest";
import { droppedFromTop } from "./log-tail.ts";

const lines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

describe("droppedFromTop", () => {
  it.each([
    ["the same lines", lines(1, 5), lines(1, 5), 0],
    ["new lines after them", lines(1, 5), lines(1, 8), 0],
    ["a full tail that moved on by three", lines(1, 500), lines(4, 503), 3],
    ["a tail that moved on by one, with nothing new shown yet", lines(1, 5), lines(2, 5), 1],
    ["a first read", [], lines(1, 5), 0],
    ["a log that was cleared", lines(1, 5), [], 5],
    ["a log that moved past everything shown", lines(1, 5), lines(20, 24), 5],
  ])("counts %s", (_, before, after, dropped) => {
    expect(droppedFromTop(before, after)).toBe(dropped);
  });

  it("takes the fewest dropped lines when the lines repeat", () => {
    expect(droppedFromTop(["tick", "tick", "tick"], ["tick", "tick", "tick", "tick"])).toBe(0);
  });
});
