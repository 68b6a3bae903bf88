import type { McpServerForm, McpServerInfo } from "../../shared/extensions-schemas.ts";

/** The add/edit form as the person types it: one argument per line, KEY=VALUE, "Name: value". */
export interface McpFormDraft {
  mode: "add" | "edit";
  name: string;
  transport: "stdio" | "http";
  command: string;
  argsText: string;
  envText: string;
  cwd: string;
  url: string;
  headersText: string;
}

export type McpFormField = "name" | "command" | "argsText" | "envText" | "url" | "headersText";

type ParsedDraft =
  | { ok: true; name: string; server: McpServerForm }
  | { ok: false; errors: Partial<Record<McpFormField, string>> };

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function isWebUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

export function emptyDraft(): McpFormDraft {
  return {
    mode: "add",
    name: "",
    transport: "stdio",
    command: "",
    argsText: "",
    envText: "",
    cwd: "",
    url: "",
    headersText: "",
  };
}

/** The form for editing a server the user configured (header values are left empty: kept as saved). */
export function draftOf(server: McpServerInfo): McpFormDraft | undefined {
  const config = server.config;
  if (!config) return undefined;
  const draft: McpFormDraft = { ...emptyDraft(), mode: "edit", name: server.name };
  if (config.transport === "stdio") {
    return {
      ...draft,
      transport: "stdio",
      command: config.command,
      argsText: config.args.join("\n"),
      envText: Object.entries(config.env)
        .map(([key, value]) => `${key}=${value}`)
        .join("\n"),
      cwd: config.cwd ?? "",
    };
  }
  return {
    ...draft,
    transport: "http",
    url: config.url,
    headersText: Object.entries(config.headers)
      .map(([header, value]) => `${header}: ${value ?? ""}`)
      .join("\n"),
  };
}

function lines(text: string): { line: string; number: number }[] {
  return text
    .split("\n")
    .map((line, index) => ({ line: line.replace(/\r$/, ""), number: index + 1 }))
    .filter(({ line }) => line.trim() !== "");
}

function pairs(
  text: string,
  separator: string,
  validName: RegExp,
  what: string,
): { values: Record<string, string | null> } | { error: string } {
  const values: Record<string, string | null> = {};
  for (const { line, number } of lines(text)) {
    const at = line.indexOf(separator);
    if (at <= 0) return { error: `Line ${number}: write ${what}.` };
    const key = line.slice(0, at).trim();
    if (!validName.test(key)) return { error: `Line ${number}: "${key}" is not a valid name.` };
    if (Object.hasOwn(values, key)) return { error: `Line ${number}: ${key} is set twice.` };
    const value = line.slice(at + separator.length);
    values[key] = separator === ":" ? value.trim() || null : value;
  }
  return { values };
}

/**
 * Turn the draft into the request the host checks again: a command with its arguments (one per
 * line, kept exactly) and environment, or a URL with headers (an empty value keeps the saved one).
 */
export function parseDraft(draft: McpFormDraft): ParsedDraft {
  const errors: Partial<Record<McpFormField, string>> = {};
  const name = draft.name.trim();
  if (!NAME.test(name)) errors.name = "Use 1-64 letters, digits, _ or -.";
  let server: McpServerForm | undefined;
  if (draft.transport === "stdio") {
    if (draft.command.trim() === "") errors.command = "Enter the command to run.";
    const env = pairs(draft.envText, "=", ENV_NAME, "KEY=value");
    if ("error" in env) errors.envText = env.error;
    else {
      server = {
        transport: "stdio",
        command: draft.command.trim(),
        args: lines(draft.argsText).map(({ line }) => line),
        env: env.values as Record<string, string>,
        ...(draft.cwd.trim() !== "" ? { cwd: draft.cwd.trim() } : {}),
      };
    }
  } else {
    const url = draft.url.trim();
    if (!isWebUrl(url)) errors.url = "Enter an http:// or https:// URL.";
    const headers = pairs(draft.headersText, ":", HEADER_NAME, "Name: value");
    if ("error" in headers) errors.headersText = headers.error;
    else server = { transport: "http", url, headers: headers.values };
  }
  if (Object.keys(errors).length > 0 || !server) return { ok: false, errors };
  return { ok: true, name, server };
}
