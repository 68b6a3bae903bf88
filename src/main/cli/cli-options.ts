import { statSync } from "node:fs";
import path from "node:path";
import { InvalidArgumentError, Option } from "commander";
import type { ApprovalMode } from "../engine/index.ts";
import { agentIdProblem, sessionIdProblem } from "../engine/light.ts";

/** The approval modes `--mode` accepts; the policy layer applies them. */
const MODES = ["ask", "allowlist", "yolo"] as const satisfies readonly ApprovalMode[];
export type Mode = (typeof MODES)[number];

/** Resolve `--root` against the current directory; a missing path or a file is a usage error. */
export function parseRoot(value: string): string {
  const resolved = path.resolve(value);
  let isFolder: boolean;
  try {
    isFolder = statSync(resolved).isDirectory();
  } catch {
    throw new InvalidArgumentError(`The folder ${resolved} does not exist. Pass an existing folder.`);
  }
  if (!isFolder) throw new InvalidArgumentError(`${resolved} is not a folder. Pass a folder.`);
  return resolved;
}

/** A TCP port: an integer from 0 (any free port) to 65535. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new InvalidArgumentError("Use a whole number from 0 to 65535 (0 picks any free port).");
  }
  return port;
}

/** A session id (`--session`, `--resume`, `session close <id>`): a malformed one is a usage error. */
export function parseSessionId(value: string): string {
  const problem = sessionIdProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}

/**
 * An agent id (`--agent`): a malformed one is a usage error; a well-formed one that names no
 * agent is the run's failure (exit 1), as a session id that names no session is.
 */
export function parseAgentId(value: string): string {
  const problem = agentIdProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}

/** A `--limit` parser: a whole number from 1 to `max`. */
export function limitParser(max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1 || n > max)
      throw new InvalidArgumentError(`Use a whole number from 1 to ${max}.`);
    return n;
  };
}

export function rootOption(): Option {
  return new Option(
    "--root <dir>",
    "the workspace folder the tools work in (default: the current directory)",
  ).argParser(parseRoot);
}

export function modeOption(): Option {
  return new Option(
    "--mode <mode>",
    'approval mode for gated tools (default: "approvals.mode" in settings, else ask; headless, ask means deny)',
  ).choices(MODES);
}

export function portOption(): Option {
  return new Option("--port <n>", "TCP port on 127.0.0.1 (0 = any free port)")
    .argParser(parsePort)
    .default(0);
}

/** The workspace root a command runs in: `--root`, or the current directory. */
export function rootOf(options: { root?: string }): string {
  return options.root ?? process.cwd();
}
