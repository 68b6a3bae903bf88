// A git config file read as git itself reads it, and written back with only some of its settings.
// Git does the reading (`git config --list --file -`): what matters is what git will run, and
// its syntax (quoting, continuation lines, old-style `[section.sub]`, case rules) is git's own.
import childProcess from "node:child_process";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** One setting: the key as `git config --list` prints it, and its value (none for a bare `variable` line). */
export interface GitSetting {
  key: string;
  value: string | undefined;
}

/** What reading a config gave: its settings, or why there are none to judge. */
export type ReadConfig =
  | { kind: "settings"; settings: GitSetting[] }
  /** Git refuses the file (it then refuses to work in that repository too, running nothing). */
  | { kind: "refused"; reason: string }
  /** Git could not be run: nobody can tell what the file would make it do. */
  | { kind: "no-git"; reason: string };

/** Git with nothing of the person's own configuration, and nothing of any repository around it. */
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_COUNT: "0",
  GIT_DIR: "/nonexistent",
};

/** The settings in a config file's bytes, as git reads them (includes not followed). */
export function readGitConfig(bytes: Uint8Array): ReadConfig {
  const run = childProcess.spawnSync("git", ["config", "--no-includes", "--null", "--list", "--file", "-"], {
    input: bytes,
    cwd: "/",
    env: GIT_ENV,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 10_000,
  });
  if (run.error) return { kind: "no-git", reason: run.error.message };
  if (run.status !== 0) {
    const reason =
      run.stderr.toString("utf8").trim() || `git exited with ${String(run.status ?? run.signal)}`;
    return { kind: "refused", reason };
  }
  const settings: GitSetting[] = [];
  for (const item of run.stdout.toString("utf8").split("\0")) {
    if (item === "") continue;
    const newline = item.indexOf("\n");
    settings.push(
      newline === -1
        ? { key: item, value: undefined }
        : { key: item.slice(0, newline), value: item.slice(newline + 1) },
    );
  }
  return { kind: "settings", settings };
}

function quoted(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t").replaceAll("\b", "\\b")}"`;
}

/** The text of a config holding `settings`, each section written once, in first-seen order. */
function configText(settings: readonly GitSetting[]): string {
  const sections = new Map<string, string[]>();
  for (const { key, value } of settings) {
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    const header =
      first === last
        ? `[${key.slice(0, first)}]`
        : `[${key.slice(0, first)} ${quoted(key.slice(first + 1, last))}]`;
    const variable = key.slice(last + 1);
    const line = value === undefined ? `\t${variable}` : `\t${variable} = ${quoted(value)}`;
    const lines = sections.get(header) ?? [];
    lines.push(line);
    sections.set(header, lines);
  }
  return [...sections].map(([header, lines]) => `${header}\n${lines.join("\n")}\n`).join("");
}

/** Replace a config file, in one rename, by one holding only `settings`. */
export function writeGitConfig(file: string, settings: readonly GitSetting[]): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.lathe-${process.pid}`);
  try {
    writeFileSync(temp, configText(settings), { mode: 0o644 });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
