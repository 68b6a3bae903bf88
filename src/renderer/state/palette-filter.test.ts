import { describe, expect, it } from "vitest";
import { filterCommands } from "./palette-filter.ts";

const commands = [
  { label: "New chat", group: "Chat" },
  { label: "Open folder…", group: "Project" },
  { label: "Fix the flaky test", group: "Sessions" },
  { label: "Plugins", group: "Extensions" },
  { label: "Chat", group: "Go to" },
];

describe("the palette's filter", () => {
  it("keeps everything for an empty query", () => {
    expect(filterCommands(commands, "  ")).toHaveLength(commands.length);
  });

  it("matches every word, any case, in label or group; labels that start with the query first", () => {
    expect(filterCommands(commands, "chat").map((c) => c.label)).toEqual(["Chat", "New chat"]);
    expect(filterCommands(commands, "FLAKY fix").map((c) => c.label)).toEqual(["Fix the flaky test"]);
    expect(filterCommands(commands, "extensions plug").map((c) => c.label)).toEqual(["Plugins"]);
    expect(filterCommands(commands, "zebra")).toEqual([]);
  });
});
