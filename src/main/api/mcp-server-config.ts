import { z } from "zod";
import type { McpServerForm } from "../../shared/extensions-schemas.ts";
import { McpServerSchema, type McpServerConfig } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the edit form starts from: the server as configured, header values withheld (null). */
export function formFromConfig(config: McpServerConfig): McpServerForm {
  if ("command" in config) {
    return {
      transport: "stdio",
      command: config.command,
      args: [...config.args],
      env: { ...config.env },
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    };
  }
  return {
    transport: "http",
    url: config.url,
    headers: Object.fromEntries(Object.keys(config.headers).map((name) => [name, null])),
  };
}

/**
 * The settings entry for a server from the form, as it will be written. Fields the form does not
 * show (`defer`, `deferTools`, `disabled`) are kept from the entry it replaces; a header whose
 * value is null keeps the value saved now.
 */
export function entryFromForm(
  name: string,
  form: McpServerForm,
  existing: unknown,
): { entry: Record<string, unknown>; config: McpServerConfig } {
  const kept: Record<string, unknown> = {};
  if (isObject(existing)) {
    for (const key of ["defer", "deferTools", "disabled"]) {
      if (existing[key] !== undefined) kept[key] = existing[key];
    }
  }
  let entry: Record<string, unknown>;
  if (form.transport === "stdio") {
    entry = { command: form.command, args: form.args };
    if (Object.keys(form.env).length > 0) entry["env"] = form.env;
    if (form.cwd !== undefined) entry["cwd"] = form.cwd;
  } else {
    const saved = isObject(existing) && isObject(existing["headers"]) ? existing["headers"] : {};
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(form.headers)) {
      if (value !== null) headers[header] = value;
      else if (typeof saved[header] === "string") headers[header] = saved[header];
      else throw new ApiError(`Enter a value for the header ${header} of MCP server "${name}".`);
    }
    entry = { url: form.url };
    if (Object.keys(headers).length > 0) entry["headers"] = headers;
  }
  Object.assign(entry, kept);
  const parsed = McpServerSchema.safeParse(entry);
  if (!parsed.success) {
    throw new ApiError(`MCP server "${name}" is not valid: ${z.prettifyError(parsed.error)}`);
  }
  return { entry, config: parsed.data };
}
