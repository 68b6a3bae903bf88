import type { ShellWord } from "./shell-analysis.ts";
import { shown } from "./shown-text.ts";

/** What setting an environment variable means for what runs. */
export type VariableEffect =
  /** The value is a command line that programs run through a shell (`GIT_PAGER='less -R'`). */
  { kind: "runs"; code: string } | { kind: "opaque"; reason: string };

/** Variables whose value is a command line that a program runs (git, man, editors, pagers). */
const COMMAND_VARIABLES = new Set([
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_PAGER",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_EXTERNAL_DIFF",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "PAGER",
  "MANPAGER",
  "EDITOR",
  "VISUAL",
  "BROWSER",
]);

/** Variables that change which program a name runs, or make programs load or run extra code. */
const LOOKUP_VARIABLES: Readonly<Record<string, string>> = {
  PATH: "changes which program each command name runs",
  BASH_ENV: "makes every bash started from here run the file it names first",
  ENV: "makes every sh started from here run the file it names first",
  PROMPT_COMMAND: "is shell code the shell runs",
  PS4: "is expanded (running any substitution in it) when tracing is on",
  SHELLOPTS: "changes the options of every shell started from here",
  BASHOPTS: "changes the options of every bash started from here",
  BASH_LOADABLES_PATH: "changes where bash loads builtins from",
  NODE_OPTIONS: "adds options, such as code to preload, to every node process",
  PERL5OPT: "adds options, such as modules to load, to every perl process",
  LESSOPEN: "is a command less runs on every file it opens",
  LESSCLOSE: "is a command less runs on every file it closes",
};

const LOOKUP_PREFIXES: readonly (readonly [string, string])[] = [
  ["LD_", "changes which libraries programs load"],
  ["DYLD_", "changes which libraries programs load"],
  ["BASH_FUNC_", "defines a shell function that every bash started from here imports"],
];

function lookupEffect(name: string): string | undefined {
  const direct = LOOKUP_VARIABLES[name];
  if (direct !== undefined) return direct;
  return LOOKUP_PREFIXES.find(([prefix]) => name.startsWith(prefix))?.[1];
}

/** The effect of `name=value` on what runs, or undefined for an ordinary variable. */
export function variableEffect(name: string, value: ShellWord): VariableEffect | undefined {
  const lookup = lookupEffect(name);
  if (lookup !== undefined) {
    return { kind: "opaque", reason: `setting ${name} ${lookup}, which Lathe cannot follow` };
  }
  if (!COMMAND_VARIABLES.has(name)) return undefined;
  if (!value.literal) {
    return {
      kind: "opaque",
      reason: `${name} is set to ${shown(value.text)}, a command that is only known when the shell runs`,
    };
  }
  return value.text.trim() === "" ? undefined : { kind: "runs", code: value.text };
}
