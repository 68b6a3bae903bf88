import { describe, expect, it } from "vitest";
import type { McpServerInfo } from "../../shared/extensions-schemas.ts";
import { draftOf, emptyDraft, parseDraft, type McpFormDraft } from "./mcp-form.ts";

const stdio = (patch: Partial<McpFormDraft>): McpFormDraft => ({
  ...emptyDraft(),
  name: "files",
  command: "npx",
  ...patch,
});
const http = (patch: Partial<McpFormDraft>): McpFormDraft => ({
  ...emptyDraft(),
  name: "remote",
  transport: "http",
  url: "https://mcp.example.test/mcp",
  ...patch,
});

describe("parseDraft", () => {
  it("keeps each argument line exactly (spaces included), skips blank lines, and reads KEY=value", () => {
    const parsed = parseDraft(
      stdio({
        argsText: "-y\n\n@modelcontextprotocol/server-filesystem\n/My Documents/notes \r\n",
        envText: "TOKEN=a=b\nEMPTY=\n",
        cwd: " sub ",
      }),
    );
    expect(parsed).toEqual({
      ok: true,
      name: "files",
      server: {
        transport: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/My Documents/notes "],
        env: { TOKEN: "a=b", EMPTY: "" },
        cwd: "sub",
      },
    });
  });

  it("reads headers as Name: value, an empty value meaning the saved one", () => {
    expect(parseDraft(http({ headersText: "Authorization: Bearer x\nX-Keep:" }))).toEqual({
      ok: true,
      name: "remote",
      server: {
        transport: "http",
        url: "https://mcp.example.test/mcp",
        headers: { Authorization: "Bearer x", "X-Keep": null },
      },
    });
  });

  it.each([
    { name: "an empty name", draft: stdio({ name: " " }), field: "name", message: /letters, digits/ },
    { name: "a name with a dot", draft: stdio({ name: "a.b" }), field: "name", message: /letters, digits/ },
    { name: "no command", draft: stdio({ command: "  " }), field: "command", message: /Enter the command/ },
    {
      name: "an env line without =",
      draft: stdio({ envText: "A=1\nTOKEN" }),
      field: "envText",
      message: /Line 2/,
    },
    {
      name: "an env name with a space",
      draft: stdio({ envText: "MY VAR=1" }),
      field: "envText",
      message: /not a valid name/,
    },
    {
      name: "an env name twice",
      draft: stdio({ envText: "A=1\nA=2" }),
      field: "envText",
      message: /set twice/,
    },
    { name: "a file URL", draft: http({ url: "file:///etc/passwd" }), field: "url", message: /http/ },
    { name: "no URL", draft: http({ url: "" }), field: "url", message: /http/ },
    {
      name: "a header without a colon",
      draft: http({ headersText: "Bearer x" }),
      field: "headersText",
      message: /Line 1/,
    },
  ])("points at the field for $name", ({ draft, field, message }) => {
    const parsed = parseDraft(draft);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors[field as keyof typeof parsed.errors]).toMatch(message);
  });
});

describe("draftOf", () => {
  const base: Omit<McpServerInfo, "config"> = {
    name: "files",
    layer: "global",
    state: "connected",
    commandLine: "cd /p && npx -y x",
    toolCount: 3,
    source: "/home/u/.lathe/settings.json",
    canRestart: true,
    editable: true,
    disabledInSettings: false,
  };

  it("turns a saved server back into the text it parses from", () => {
    const server: McpServerInfo = {
      ...base,
      config: { transport: "stdio", command: "npx", args: ["-y", "x y"], env: { A: "1" }, cwd: "sub" },
    };
    const draft = draftOf(server);
    expect(draft).toMatchObject({
      mode: "edit",
      name: "files",
      argsText: "-y\nx y",
      envText: "A=1",
      cwd: "sub",
    });
    expect(parseDraft(draft!)).toEqual({ ok: true, name: "files", server: server.config });
  });

  it("leaves header values empty (kept as saved), and has nothing for a server it may not edit", () => {
    const remote: McpServerInfo = {
      ...base,
      config: { transport: "http", url: "https://a.test/mcp", headers: { Authorization: null } },
    };
    expect(draftOf(remote)?.headersText).toBe("Authorization: ");
    expect(draftOf({ ...base, editable: false })).toBeUndefined();
  });
});
