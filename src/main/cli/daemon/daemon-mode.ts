import { readFileSync } from "node:fs";
import path from "node:path";
import { buildName } from "./daemon-address.ts";

/**
 * Whether `lathe` hands its quick commands to a daemon: `LATHE_DAEMON=on` or `off`; unset, on,
 * except under CI (where every job starts on a fresh machine and a process left behind helps
 * nobody). Anything else is read as unset, and `lathe daemon status` says so.
 */
export function daemonMode(env: NodeJS.ProcessEnv = process.env): { on: boolean; why: string } {
  const value = (env.LATHE_DAEMON ?? "").trim().toLowerCase();
  if (["on", "1", "true", "yes"].includes(value)) return { on: true, why: "LATHE_DAEMON is on" };
  if (["off", "0", "false", "no"].includes(value)) return { on: false, why: "LATHE_DAEMON is off" };
  const unknown =
    value === "" ? "" : ` (LATHE_DAEMON=${env.LATHE_DAEMON} is neither on nor off, so it is ignored)`;
  const ci = (env.CI ?? "").trim().toLowerCase();
  if (ci !== "" && ci !== "0" && ci !== "false") {
    return { on: false, why: `off under CI (CI is set); LATHE_DAEMON=on turns it on${unknown}` };
  }
  return { on: true, why: `on by default; LATHE_DAEMON=off turns it off${unknown}` };
}

/**
 * The commands a daemon runs: those that read no terminal input (stdin only as a stream) and stop
 * cleanly on Ctrl-C or SIGTERM — the quick ones, and `run`, whose start (the model client, the
 * engine, plugins) is most of the wait before an agent's first request.
 */
export const DAEMON_COMMANDS: ReadonlySet<string> = new Set(["tools", "call", "batch", "run"]);

/**
 * The name of the build in `bundleDir` (the CLI bundle, out/cli/) for this Node: what the daemon's
 * socket is named after, so a client only ever reaches a daemon running its own code. Undefined
 * when there is no built bundle there.
 */
export function bundleBuild(bundleDir: string): string | undefined {
  let builtAt: unknown;
  try {
    builtAt = (
      JSON.parse(readFileSync(path.join(bundleDir, "build-info.json"), "utf8")) as { builtAt?: unknown }
    ).builtAt;
  } catch {
    return undefined;
  }
  if (typeof builtAt !== "number") return undefined;
  return buildName([String(builtAt), bundleDir, process.version, process.execPath]);
}
