import path from "node:path";

const MARKER = "__LATHE_LOGIN_PATH__";
const DEFAULT_TIMEOUT_MS = 3_000;

/**
 * The PATH the user's login shell sets up (`$SHELL -lc`), so servers started as `npx` or `uvx`
 * resolve as they do in a terminal even when Lathe was launched from a desktop launcher. Anything
 * the profile prints is ignored (the value follows a marker). Falls back to `fallback` when there
 * is no shell, it fails, or it takes longer than `timeoutMs`.
 */
export function readLoginShellPath(
  shell: string | undefined,
  fallback: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<string> {
  if (!shell || process.platform === "win32") return Promise.resolve(fallback);
  const { execFile } = process.getBuiltinModule("node:child_process");
  return new Promise((resolve) => {
    execFile(
      shell,
      ["-lc", `printf '%s%s' '${MARKER}' "$PATH"`],
      { timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 1024 * 1024, windowsHide: true },
      (error, stdout) => {
        const at = stdout.lastIndexOf(MARKER);
        const value = at < 0 ? "" : stdout.slice(at + MARKER.length).trim();
        resolve(error || value === "" ? fallback : value);
      },
    );
  });
}

/** Join PATH lists, keeping the first occurrence of each entry. */
export function mergePathLists(...lists: ReadonlyArray<string | undefined>): string {
  const seen = new Set<string>();
  for (const list of lists)
    for (const entry of (list ?? "").split(path.delimiter)) if (entry !== "") seen.add(entry);
  return [...seen].join(path.delimiter);
}

let cached: Promise<string> | undefined;

/** The login-shell PATH merged with this process's PATH, read once per process. */
export function loginShellPath(): Promise<string> {
  cached ??= readLoginShellPath(process.env.SHELL, process.env.PATH ?? "").then((login) =>
    mergePathLists(login, process.env.PATH),
  );
  return cached;
}
