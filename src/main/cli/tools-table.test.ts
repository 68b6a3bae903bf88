import { describe, expect, it } from "vitest";
import type { ToolInfo } from "../engine/index.ts";
import {
  formatDeferredTools,
  formatDisabledTools,
  formatOrigin,
  formatShadowing,
  formatToolsTable,
  listTools,
} from "./tools-table.ts";

function tool(overrides: Partial<ToolInfo>): ToolInfo {
  return {
    id: "read",
    description: "Read a file.\n\nMore detail that the table leaves out.",
    parameters: { type: "object" },
    requires: {},
    readOnly: true,
    gated: false,
    kind: "read",
    origin: { layer: "builtin", kind: "builtin" },
    deferred: false,
    shadows: [],
    ...overrides,
  };
}

describe("formatOrigin", () => {
  it.each([
    [{ layer: "builtin", kind: "builtin" }, "builtin"],
    [{ layer: "project", kind: "plugin", name: "my-tool" }, "project plugin my-tool"],
    [{ layer: "global", kind: "mcp", name: "fs" }, "global mcp fs"],
    [{ layer: "bundled", kind: "plugin" }, "bundled plugin"],
  ] as const)("%o reads as %s", (origin, expected) => {
    expect(formatOrigin(origin)).toBe(expected);
  });
});

describe("formatToolsTable", () => {
  it("aligns the columns, says whether each schema is loaded or deferred, and shows only the first line of each description", () => {
    const table = formatToolsTable([
      tool({}),
      tool({
        id: "write_file",
        description: "  Write a file.\r\nSecond line.",
        readOnly: false,
        kind: "edit",
        origin: { layer: "project", kind: "plugin", name: "writer" },
        deferred: true,
      }),
    ]);
    expect(table).toBe(
      [
        "ID          KIND  ACCESS     ORIGIN                 SCHEMA    DESCRIPTION",
        "read        read  read-only  builtin                loaded    Read a file.",
        "write_file  edit  mutating   project plugin writer  deferred  Write a file.",
        "",
      ].join("\n"),
    );
  });

  it("cuts lines to the terminal width with an ellipsis", () => {
    const lines = formatToolsTable([tool({ description: "x".repeat(200) })], 60)
      .trimEnd()
      .split("\n");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines[1]?.endsWith("…")).toBe(true);
  });

  it("says so when there are no tools", () => {
    expect(formatToolsTable([])).toBe("No tools are registered.\n");
  });
});

describe("formatDeferredTools", () => {
  it("names the tools deferred by their own defer: true apart from those past the budget, with the context assumed", () => {
    const text = formatDeferredTools(
      [
        tool({}),
        tool({ id: "crm_find", deferred: true, deferredBy: "config" }),
        tool({ id: "big_one", deferred: true, deferredBy: "budget" }),
        tool({ id: "big_two", deferred: true, deferredBy: "budget" }),
      ],
      32_768,
    );
    const lines = text.split("\n");
    expect(lines[1]).toMatch(/^Deferred \(3\): the model starts with their names only, .*tool_search/);
    expect(lines[2]).toMatch(/^ {2}crm_find: marked defer /);
    expect(lines[3]).toMatch(
      /^ {2}big_one, big_two: past 10% of a 32768-token context, .*lathe run sizes it by its model's/,
    );
  });

  it("adds nothing when no tool is deferred", () => {
    expect(formatDeferredTools([tool({})], 32_768)).toBe("");
  });
});

describe("formatShadowing", () => {
  it("names each tool that hides another of its name, and what it hides", () => {
    expect(
      formatShadowing([
        tool({}),
        tool({
          id: "word_count",
          origin: { layer: "project", kind: "plugin", name: "wc" },
          shadows: [
            { layer: "bundled", kind: "plugin", name: "word_count" },
            { layer: "global", kind: "plugin", name: "word_count" },
          ],
        }),
      ]),
    ).toBe(
      [
        "",
        "Shadowing (1):",
        "  word_count: project plugin wc hides bundled plugin word_count, global plugin word_count",
        "",
      ].join("\n"),
    );
  });

  it("says nothing when nothing is shadowed", () => {
    expect(formatShadowing([tool({})])).toBe("");
  });
});

describe("listTools and formatDisabledTools", () => {
  const disabled = [
    {
      id: "zeta",
      origin: { layer: "project", kind: "plugin", name: "zeta" },
      reason: "It changed since you trusted this project.",
      fix: "run `lathe trust --root /p`",
    },
    {
      id: "/home/u/.lathe/tools",
      origin: { layer: "global", kind: "plugin" },
      reason: "Cannot read the global tools folder.",
    },
    { id: "alpha", origin: { layer: "global", kind: "mcp", name: "srv" }, reason: "It exited." },
  ] as const;

  it("lists the bound tools, then the disabled ones by id, leaving problems that name no tool to stderr", () => {
    const listed = listTools([tool({})], [...disabled]);
    expect(listed.map((t) => [t.id, t.enabled])).toEqual([
      ["read", true],
      ["alpha", false],
      ["zeta", false],
    ]);
    expect(listed[2]).toEqual({ ...disabled[0], enabled: false });
    expect(listed[1]).not.toHaveProperty("fix");
  });

  it("prints each disabled tool with its origin, why, and the fix when there is one", () => {
    expect(formatDisabledTools(listTools([tool({})], [...disabled]))).toBe(
      [
        "",
        "Disabled (2):",
        "  alpha (global mcp srv)",
        "    why: It exited.",
        "  zeta (project plugin zeta)",
        "    why: It changed since you trusted this project.",
        "    fix: run `lathe trust --root /p`",
        "",
      ].join("\n"),
    );
    expect(formatDisabledTools(listTools([tool({})], []))).toBe("");
  });
});
