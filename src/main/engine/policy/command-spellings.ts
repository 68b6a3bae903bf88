import type { SimpleCommand } from "./shell/shell-analysis.ts";
import { parseGit } from "./shell/git-command.ts";
import { requirementName } from "./shell-requirements.ts";

/** The texts permission rules match one simple command by. */
interface CommandSpellings {
  /**
   * As written, and under its bare name when it is a system program: `/usr/bin/git push` is
   * `git push`, as the capability check reads it.
   */
  values: string[];
  /**
   * What deny and ask rules match too, but allow rules do not: git without the options it reads
   * before its subcommand (`git -C sub push`, `git --no-pager push` are also `git push`), so a
   * deny of `git push:*` holds, while an allow of `git push:*` does not let
   * `git -c core.sshCommand=… push` through.
   */
  denyOnly: string[];
}

export function commandSpellings(command: SimpleCommand, text: string): CommandSpellings {
  const name = requirementName(command);
  const args = command.args.map((a) => a.text);
  const bare = [name, ...args].join(" ");
  const values = bare === text ? [text] : [text, bare];
  const denyOnly: string[] = [];
  if (name === "git") {
    const git = parseGit(command.args);
    if (git.subcommand !== undefined) {
      const plain = ["git", git.subcommand, ...git.args.map((a) => a.text)].join(" ");
      if (!values.includes(plain)) denyOnly.push(plain);
    }
  }
  return { values, denyOnly };
}
