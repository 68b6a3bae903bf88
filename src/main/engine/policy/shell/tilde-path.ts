import os from "node:os";

/**
 * A path as the program that gets it will take it: `~` and `~/…` are the home folder of the
 * user Lathe runs as (the shell expands them in a bash command; git expands the `~/.gitconfig`
 * its `--global` writes itself), any other path is left as it is.
 */
export function expandTilde(text: string): string {
  return text === "~" || text.startsWith("~/") ? `${os.homedir()}${text.slice(1)}` : text;
}
