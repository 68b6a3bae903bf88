import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/** What setting an environment or shell variable means for what runs. */
type VariableEffect =
  /**
   * The value is a command line that programs run through a shell (`GIT_PAGER='less -R'`);
   * `reason` is set when they add arguments to it that Lathe cannot see.
   */
  { kind: "runs"; code: string; reason?: string } | { kind: "opaque"; reason: string };

/** Variables holding a command line a program runs through `sh -c` exactly as written. */
const PAGER_VARIABLES = new Set(["GIT_PAGER", "PAGER", "MANPAGER"]);

/** Variables holding a command a program runs with arguments of its own appended. */
const COMMAND_VARIABLES = new Set([
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_EXTERNAL_DIFF",
  "GIT_ASKPASS",
  "GIT_PROXY_COMMAND",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "EDITOR",
  "VISUAL",
  "BROWSER",
]);

/** Variables that change which program a name runs, what a shell does, or where files go. */
const LOOKUP_VARIABLES: Readonly<Record<string, string>> = {
  PATH: "changes which program each command name runs",
  BASH_ENV: "makes every bash started from here run the file it names first",
  ENV: "makes every sh started from here run the file it names first",
  PROMPT_COMMAND: "is shell code the shell runs",
  PS0: "is expanded (running any substitution in it) by the shell",
  PS1: "is expanded (running any substitution in it) by the shell",
  PS2: "is expanded (running any substitution in it) by the shell",
  PS3: "is expanded (running any substitution in it) by the shell",
  PS4: "is expanded (running any substitution in it) when tracing is on",
  SHELLOPTS: "changes the options of every shell started from here",
  BASHOPTS: "changes the options of every bash started from here",
  BASH_LOADABLES_PATH: "changes where bash loads builtins from",
  BASH_XTRACEFD: "sends the shell's trace to another file descriptor",
  IFS: "changes how the shell splits every unquoted expansion into words",
  GLOBIGNORE: "changes which files every glob matches",
  CDPATH: "changes which folder cd enters",
  OLDPWD: "changes which folder `cd -` enters",
  HOME: "changes where ~ points and where programs read their settings (such as git's global config)",
  TMPDIR: "changes where programs create their temporary files",
  HISTFILE: "changes which file the shell's history is written to",
  SHELL: "changes which shell programs start for commands (script, flock -c …)",
  NODE_OPTIONS: "adds options, such as code to preload, to every node process",
  PERL5OPT: "adds options, such as modules to load, to every perl process",
  PERL5LIB: "changes where perl loads modules from",
  PERLLIB: "changes where perl loads modules from",
  RUBYOPT: "adds options, such as libraries to load, to every ruby process",
  RUBYLIB: "changes where ruby loads libraries from",
  JAVA_TOOL_OPTIONS: "adds options, such as agents to load, to every java process",
  _JAVA_OPTIONS: "adds options, such as agents to load, to every java process",
  LESSOPEN: "is a command less runs on every file it opens",
  LESSCLOSE: "is a command less runs on every file it closes",
  LESS: "adds options, such as a log file to write, to less",
  LESSKEYIN:
    "makes less read key bindings from the file it names, whose #env section can set LESSOPEN (a program less runs)",
  LESSKEY:
    "makes less read key bindings from the file it names, whose #env section can set LESSOPEN (a program less runs)",
  LESSKEY_CONTENT: "gives less key bindings whose #env section can set LESSOPEN (a program less runs)",
  LESSKEYIN_SYSTEM:
    "makes less read key bindings from the file it names, whose #env section can set LESSOPEN (a program less runs)",
  LESSKEY_SYSTEM:
    "makes less read key bindings from the file it names, whose #env section can set LESSOPEN (a program less runs)",
  LESSHISTFILE: "changes which file less writes its history to",
  LESSGLOBALTAGS: "names a program less runs to look tags up (less -t)",
  MAGIC:
    "makes file read its magic patterns from the file it names, printing lines it cannot read (a key's, too)",
  BZIP2: "adds options and file names to bzip2 (bzip2 -c then compresses a file Lathe does not see named)",
  BZIP: "adds options and file names to bzip2 (bzip2 -c then compresses a file Lathe does not see named)",
  XZ_OPT:
    "adds options to xz, such as --files=FILE, which reads file names from FILE (and prints its lines as names not found)",
  XZ_DEFAULTS:
    "adds options to xz, such as --files=FILE, which reads file names from FILE (and prints its lines as names not found)",
  UNZIP: "adds options and an archive to read to unzip",
  UNZIPOPT: "adds options and an archive to read to unzip",
  ZIPINFO: "adds options and an archive to read to zipinfo",
  ZIPINFOOPT: "adds options and an archive to read to zipinfo",
  JDK_JAVA_OPTIONS: "adds options, such as agents to load, to every java process",
  MANOPT: "adds options, such as a pager to run, to man",
  TAR_OPTIONS: "adds options, such as a compression program to run (--use-compress-program), to tar",
  TAPE: "names the archive tar reads when given no -f (any file, and host:file through a remote shell)",
  GREP: "names the program zgrep runs as grep",
  RIPGREP_CONFIG_PATH:
    "makes rg read options, such as a program to run on every file (--pre), from the file it names",
  PS_FORMAT: "chooses the columns ps prints, such as other processes' command lines (args)",
  PS_PERSONALITY: "changes how ps reads its options and what it prints",
  GCONV_PATH: "makes programs load character-set converters (code) from the folder it names",
  GLIBC_TUNABLES: "changes how the C library behaves in every program",
  MAKEFLAGS: "adds options and variables to every make",
  MAKEFILES: "makes every make read extra makefiles first",
  CURL_HOME: "makes curl read its settings (such as where to write) from another folder",
  WGETRC: "makes wget read its settings (such as commands to run) from another file",
  GNUPGHOME: "changes where gpg reads and writes its keys and settings",
  TEXTDOMAINDIR: 'changes where the shell finds translations for $"…" strings',
  INPUTRC: "changes the key bindings (which can run commands) of readline programs",
};

/** Name prefixes of variables that load code or redirect where programs read and write. */
const LOOKUP_PREFIXES: readonly (readonly [RegExp, string])[] = [
  [/^LD_/, "changes which libraries programs load"],
  [/^DYLD_/, "changes which libraries programs load"],
  [/^BASH_FUNC_/, "defines a shell function that every bash started from here imports"],
  [/^PYTHON/, "changes how python starts (what it loads, where it writes)"],
  [/^NODE_/, "changes how node starts (where it loads modules from)"],
  [/^NPM_CONFIG_/i, "changes npm's settings (where it installs, which shell runs scripts)"],
  [/^PIP_/, "changes pip's settings (where it installs)"],
  [
    /^PYENV_/,
    "changes what pyenv's stand-ins (python, pip …) run: the version (a path, too), the folder its .python-version is read from, and hook scripts they run first",
  ],
  [/^XDG_/, "changes where programs read their settings (such as git's config) and write their data"],
  [/^GIT_/, "changes what git reads and writes (its config, repository, work tree, trace files …)"],
];

/** git variables that only label or quieten what git does. */
const HARMLESS_GIT =
  /^GIT_((AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|TERMINAL_PROMPT|OPTIONAL_LOCKS|CONFIG_NOSYSTEM|FLUSH|(LITERAL|GLOB|NOGLOB|ICASE)_PATHSPECS|MERGE_AUTOEDIT|NO_REPLACE_OBJECTS|ADVICE|PROGRESS_DELAY)$/;

function lookupEffect(name: string): string | undefined {
  const direct = LOOKUP_VARIABLES[name];
  if (direct !== undefined) return direct;
  if (HARMLESS_GIT.test(name) || PAGER_VARIABLES.has(name) || COMMAND_VARIABLES.has(name)) return undefined;
  return LOOKUP_PREFIXES.find(([prefix]) => prefix.test(name))?.[1];
}

/**
 * Variables whose removal (`unset PATH`) changes what runs or what a path names, with how. With
 * no PATH, bash runs a command name as the file of that name where it runs; with no HOME, `$HOME`
 * is empty while the policy reads `$HOME/x` as `~/x` (seen-path.ts).
 */
const UNSET_EFFECTS: Readonly<Record<string, string>> = {
  PATH: "makes bash run each command name as the file of that name in the folder it runs in (cat runs ./cat)",
  HOME: "makes $HOME empty ($HOME/x is then /x) and ~ the account's home folder",
};

/** Why `unset name` changes what runs or what a path names, or undefined when it changes neither. */
export function unsetEffect(name: string): string | undefined {
  const effect = UNSET_EFFECTS[name];
  return effect === undefined ? undefined : `unsetting ${name} ${effect}, which Lathe cannot follow`;
}

/** The effect of `name=value` on what runs, or undefined for an ordinary variable. */
export function variableEffect(name: string, value: ShellWord): VariableEffect | undefined {
  const lookup = lookupEffect(name);
  if (lookup !== undefined) {
    return { kind: "opaque", reason: `setting ${name} ${lookup}, which Lathe cannot follow` };
  }
  const appended = COMMAND_VARIABLES.has(name);
  if (!appended && !PAGER_VARIABLES.has(name)) return undefined;
  if (!value.literal) {
    return {
      kind: "opaque",
      reason: `${name} is set to ${shown(value.text)}, a command that is only known when the shell runs`,
    };
  }
  if (value.text.trim() === "") return undefined;
  return appended
    ? {
        kind: "runs",
        code: value.text,
        reason: `${name} is set to ${shown(value.text)}, a command that programs run with arguments of their own added, which Lathe cannot see`,
      }
    : { kind: "runs", code: value.text };
}
