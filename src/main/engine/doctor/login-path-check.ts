import { FAILURE_MAX_AGE_MS, loginPathCache } from "../mcp/login-path-cache.ts";
import { resolveLoginShellPath } from "../mcp/login-shell-path.ts";

/** One line of `lathe doctor`'s toolchain (the shape of doctor.ts's checks). */
export interface LoginPathCheck {
  name: string;
  ok: boolean;
  required: false;
  detail: string;
  fix?: string;
}

const NAME = "PATH for stdio MCP servers (your login shell's)";

function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "less than a minute ago";
  if (minutes < 60) return `${minutes} min ago`;
  return `${Math.floor(minutes / 60)} h ago`;
}

/**
 * Where the PATH stdio MCP servers start with comes from, as the next server start would get
 * it: the login shell's answer kept from before (and how old), or asked now (and kept), or none
 * (no SHELL). A login shell that failed or timed out is a failed optional check: servers then
 * start with Lathe's own PATH, so a command found in a terminal may not be found.
 */
export async function loginPathCheck(
  latheHome: string,
  env: Readonly<NodeJS.ProcessEnv>,
): Promise<LoginPathCheck> {
  const result = await resolveLoginShellPath(latheHome, env);
  const { answer } = result;
  if (!answer) return { name: NAME, ok: true, required: false, detail: "SHELL is not set: Lathe's own PATH" };
  const when = result.from === "cache" ? `kept from ${ago(Date.now() - answer.at)}` : "asked now";
  const notKept = result.notKept ? `; could not be kept for the next start: ${result.notKept}` : "";
  if (answer.ok)
    return {
      name: NAME,
      ok: true,
      required: false,
      detail: `${answer.shell} -l, ${when} (it took ${answer.ms} ms)${notKept}`,
    };
  const retry = Math.ceil((answer.at + FAILURE_MAX_AGE_MS - Date.now()) / 60_000);
  return {
    name: NAME,
    ok: false,
    required: false,
    detail: `${answer.shell} -l ${answer.reason} (${when}): servers start with Lathe's own PATH; asked again in ${retry} min or when a login file changes${notKept}`,
    fix: `find what makes "${answer.shell} -lc true" slow or fail in your login files (a stale lock, a network call), then delete ${loginPathCache(latheHome).file}`,
  };
}
