import path from "node:path";
import { hostEnv } from "../spawner/host-env.ts";

const MARKER = "__LATHE_LOGIN_PATH__";
const DEFAULT_TIMEOUT_MS = 3_000;

/**
 * The PATH the user's login shell sets up (`$SHELL -lc`), so servers started as `npx` or `uvx`
 * resolve as they do in a terminal even when Lathe was launched from a desktop launcher. Anything
 * the profile prints is ignored (the value follows a marker). Falls back to `fallback` when there
 * is no shell, it fails, or it takes longer than `timeoutMs` (then it ends, with all it started).
 * The process spawner starts the shell (the first MCP server may be added while the host is
 * large); rejects with the spawner's error when it could not run it.
 */
export async function readLoginShellPath(
  shell: string | undefined,
  fallback: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<string> {
  if (!shell || process.platform === "win32") return fallback;
  const line = `printf '%s%s' '${MARKER}' "$PATH"`;
  const { processSpawner } = await import("../spawner/process-spawner.ts");
  const { end, stdout } = await processSpawner().exec(
    {
      file: shell,
      args: ["-lc", line],
      line: "",
      cwd: process.cwd(),
      env: hostEnv(),
      timeoutMs,
      maxBytes: 1024 * 1024,
      group: true,
    },
    new AbortController().signal,
  );
  const text = stdout.toString("utf8");
  const at = text.lastIndexOf(MARKER);
  const value = at < 0 ? "" : text.slice(at + MARKER.length).trim();
  return end.failed || value === "" ? fallback : value;
}

/** Join PATH lists, keeping the first occurrence of each entry. */
export function mergePathLists(...lists: ReadonlyArray<string | undefined>): string {
  const seen = new Set<string>();
  for (const list of lists)
    for (const entry of (list ?? "").split(path.delimiter)) if (entry !== "") seen.add(entry);
  return [...seen].join(path.delimiter);
}

let cached: Promise<string> | undefined;

/** The login-shell PATH merged with this process's PATH: read once per process, again after a failure. */
export function loginShellPath(): Promise<string> {
  if (!cached) {
    const reading = readLoginShellPath(process.env.SHELL, process.env.PATH ?? "").then((login) =>
      mergePathLists(login, process.env.PATH),
    );
    cached = reading;
    reading.catch(() => {
      if (cached === reading) cached = undefined;
    });
  }
  return cached;
}
