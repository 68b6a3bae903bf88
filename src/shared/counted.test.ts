import { describe, expect, it } from "vitest";
import { counted as enginesCounted } from "../main/engine/tools/counted.ts";
import { counted } from "./counted.ts";

describe("counted", () => {
  it.each<[number, string, string]>([
    [1, "byte", "1 byte"],
    [0, "byte", "0 bytes"],
    [2, "line", "2 lines"],
    [1, "match", "1 match"],
    [3, "match", "3 matches"],
    [2, "entry", "2 entries"],
    [2, "day", "2 days"],
    [5, "more question", "5 more questions"],
  ])("%d %s is written %j (by the engine's copy too)", (n, noun, want) => {
    expect(counted(n, noun)).toBe(want);
    expect(enginesCounted(n, noun)).toBe(want);
  });

  it("takes an irregular plural and a written number", () => {
    expect(counted(2, "name and pattern", { plural: "names and patterns" })).toBe("2 names and patterns");
    expect(counted(1, "name and pattern", { plural: "names and patterns" })).toBe("1 name and pattern");
    expect(counted(1200, "message", { shown: "1,200" })).toBe("1,200 messages");
  });
});
