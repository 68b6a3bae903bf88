import { describe, expect, it } from "vitest";
import { didYouMean, editDistance } from "./did-you-mean.ts";

describe("editDistance", () => {
  it.each([
    ["string", "string", 0],
    ["strng", "string", 1],
    ["requried", "required", 1], // two neighbours swapped count once
    ["minLenght", "minLength", 1],
    ["", "abc", 3],
    ["kitten", "sitting", 3],
  ])("%s → %s is %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe("didYouMean", () => {
  const fields = ["name", "version", "description", "input_schema", "timeoutMs", "readOnly"];
  it.each([
    ["descripton", "description"],
    ["versoin", "version"],
    ["inputschema", "input_schema"],
    ["readonly", "readOnly"], // case is ignored
    ["timeoutms", "timeoutMs"],
    ["nmae", "name"],
  ])("%s → %s", (word, meant) => {
    expect(didYouMean(word, fields)).toBe(meant);
  });

  it.each([["colour"], ["x"], ["permissions"], ["name"]])("offers nothing for %s", (word) => {
    expect(didYouMean(word, fields)).toBeUndefined();
  });
});
