import path from "node:path";
import { errorMessage } from "../errors/error-message.ts";
import { hostEnv } from "../spawner/host-env.ts";
import { isFresh, loginPathCache, type LoginShellAnswer } from "./login-path-cache.ts";
import { loginPathKey } from "./login-path-key.ts";

const MARKER = "__LATHE_LOGIN_PATH__";
const DEFAULT_TIMEOUT_MS = 3_000;

/**
 * Run `shell -lc` once and read the PATH it sets up, so servers started as `npx` or `uvx`
 * resolve as they do in a terminal even when Lathe was launched from a desktop launcher.
 * Anything the profile prints is ignored (the value follows a marker). The answer says why there
 * is no PATH when the shell could not start, failed, printed none, or took longer than
 * `timeoutMs` (then it ends, with all it started). The process spawner starts the shell (the
 * first MCP server may be added while the host is large); rejects with the spawner's error when
 * the spawner itself could not take the request.
 */
export async function askLoginShell(
  shell: string,
  env: Readonly<NodeJS.ProcessEnv>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<LoginShellAnswer> {
  const line = `printf '%s%s' '${MARKER}' "$PATH"`;
  const { processSpawner } = await import("../spawner/process-spawner.ts");
  const started = Date.now();
  const { end, stdout } = await processSpawner().exec(
    {
      file: shell,
      args: ["-lc", line],
      line: "",
      cwd: process.cwd(),
      env: hostEnv(env),
      timeoutMs,
      maxBytes: 1024 * 1024,
      group: true,
    },
    new AbortController().signal,
  );
  const at = Date.now();
  const done = { shell, at, ms: at - started };
  if (typeof end.code === "string") return { ok: false, reason: `it could not start (${end.code})`, ...done };
  if (end.failed && end.killed && end.code === null)
    return { ok: false, reason: `it did not finish within ${timeoutMs / 1000} s`, ...done };
  if (end.failed)
    return {
      ok: false,
      reason: end.code === null ? "it was ended by a signal" : `it exited with ${end.code}`,
      ...done,
    };
  const text = stdout.toString("utf8");
  const marked = text.lastIndexOf(MARKER);
  const value = marked < 0 ? "" : text.slice(marked + MARKER.length).trim();
  return value === ""
    ? { ok: false, reason: "it printed no PATH", ...done }
    : { ok: true, path: value, ...done };
}

/** Join PATH lists, keeping the first occurrence of each entry. */
export function mergePathLists(...lists: ReadonlyArray<string | undefined>): string {
  const seen = new Set<string>();
  for (const list of lists)
    for (const entry of (list ?? "").split(path.delimiter)) if (entry !== "") seen.add(entry);
  return [...seen].join(path.delimiter);
}

/** The PATH stdio MCP servers start with, and where it came from. */
export interface LoginShellPath {
  /** The login shell's PATH followed by the rest of the caller's; the caller's alone without one. */
  path: string;
  /** `cache`: an answer kept from before; `shell`: the shell was asked now; `none`: no SHELL (or Windows). */
  from: "cache" | "shell" | "none";
  /** The shell's answer used (a PATH, or why there is none). */
  answer?: LoginShellAnswer;
  /** Why the answer could not be kept for the next process (it asks the shell again). */
  notKept?: string;
}

/** Reads of the login shell going on in this process, so servers starting together share one. */
const reading = new Map<string, Promise<{ answer: LoginShellAnswer; notKept?: string }>>();

/**
 * The login shell's PATH (`$SHELL -lc`) merged with the caller's PATH (`env`'s), for stdio MCP
 * servers. The shell's answer is kept under `$LATHE_HOME/cache/` (login-path-cache.ts) for the
 * processes that start after, while the shell, HOME, the user, the PATH it started with and its
 * login files are the same (login-path-key.ts), for a day at most. A shell that fails or times
 * out gives the caller's PATH alone; that failure is kept for ten minutes, so the processes
 * started meanwhile do not each wait for it again. Each call merges with its own `env`'s PATH,
 * so a daemon running commands for different callers gives each its own.
 */
export async function resolveLoginShellPath(
  latheHome: string,
  env: Readonly<NodeJS.ProcessEnv> = process.env,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<LoginShellPath> {
  const own = env.PATH ?? "";
  const shell = env.SHELL;
  if (!shell || process.platform === "win32") return { path: own, from: "none" };
  const key = loginPathKey(shell, env);
  const cache = loginPathCache(latheHome);
  const kept = cache.read(key);
  const result = (answer: LoginShellAnswer) =>
    answer.ok ? mergePathLists(answer.path, own) : mergePathLists(own);
  if (kept && isFresh(kept, Date.now())) return { path: result(kept), from: "cache", answer: kept };

  const id = `${cache.file}\u0000${key}`;
  let read = reading.get(id);
  if (!read) {
    read = askLoginShell(shell, env, timeoutMs).then((answer) => {
      try {
        cache.write(key, answer);
        return { answer };
      } catch (err) {
        // Not fatal: the next process asks the shell again, and `lathe doctor` says why.
        return { answer, notKept: errorMessage(err) };
      }
    });
    reading.set(id, read);
    const forget = () => reading.delete(id);
    read.then(forget, forget);
  }
  const { answer, notKept } = await read;
  return { path: result(answer), from: "shell", answer, ...(notKept ? { notKept } : {}) };
}

/** The PATH stdio MCP servers start with: see resolveLoginShellPath. */
export async function loginShellPath(latheHome: string): Promise<string> {
  return (await resolveLoginShellPath(latheHome)).path;
}
