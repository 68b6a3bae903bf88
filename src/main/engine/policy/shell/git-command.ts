import { isPlainGlob } from "./seen-path.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * A git command line split into what git reads before the subcommand (`-C`, `-c`, `--git-dir` …)
 * and the subcommand with its arguments, with every global option that makes git run another
 * program or use another repository reported.
 */

interface GitCommand {
  /** Folders given with `-C`, in order (each relative to the one before). */
  folders: ShellWord[];
  /** The subcommand, when it is written literally; undefined when none is given. */
  subcommand: string | undefined;
  args: ShellWord[];
  /** Reasons git may run something else, or work on a repository other than the folder's. */
  unclear: string[];
  /** `--version`, `--help`, `--exec-path` without a value and the like: git prints and exits. */
  printsOnly: boolean;
}

/**
 * Configuration keys that only change how git formats, labels or quietens what it does. Every
 * other key may name a program (`core.pager`, `core.fsmonitor`, `diff.x.textconv`, `alias.*` …)
 * or a file or folder git reads code or settings from (`core.hooksPath`, `include.path`), so it
 * is refused.
 */
const HARMLESS_CONFIG =
  /^(color\.[a-z.]+|user\.(name|email)|author\.(name|email)|committer\.(name|email)|advice\.[a-z]+|core\.(quotepath|abbrev|autocrlf|safecrlf|eol|ignorecase|filemode|precomposeunicode|whitespace|commentchar|commentstring|logallrefupdates|bigfilethreshold)|init\.defaultbranch|commit\.(gpgsign|verbose|cleanup|status)|tag\.(gpgsign|sort)|log\.[a-z]+|status\.[a-z]+|column\.[a-z]+|i18n\.[a-z]+|merge\.(conflictstyle|ff|log|stat|renames|renamelimit|autostash|verbosity)|pull\.(rebase|ff|octopus|twohead)|rebase\.(autostash|autosquash|stat|abbreviatecommands|missingcommitscheck|updaterefs)|diff\.(renames|algorithm|noprefix|mnemonicprefix|colormoved|colormovedws|context|interhunkcontext|relative|statgraphwidth|statnamewidth|indentheuristic|suppressblankempty|submodule|ignoresubmodules|wserrorhighlight|dirstat|orderfile)|format\.(pretty|numbered|signoff|coverletter|suffix|subjectprefix|thread)|pretty\.[a-z0-9_-]+|blame\.[a-z]+|grep\.[a-z]+|gc\.[a-z]+|maintenance\.auto|fetch\.(prune|prunetags|parallel|writecommitgraph|recursesubmodules)|push\.(autosetupremote|default|followtags)|branch\.(autosetupmerge|autosetuprebase|sort)|help\.autocorrect|transfer\.fsckobjects|fetch\.fsckobjects|receive\.fsckobjects|feature\.[a-z]+|index\.[a-z]+|pack\.[a-z]+|checkout\.(defaultremote|workers)|submodule\.recurse|rerere\.(enabled|autoupdate)|am\.(threeway|keepcr)|apply\.whitespace|protocol\.version|http\.(version|postbuffer|lowspeedlimit|lowspeedtime)|safe\.bareRepository)$/i;

export function harmlessConfigKey(key: string): boolean {
  return HARMLESS_CONFIG.test(key);
}

/** `-c name=value`: refused unless the name is one that cannot make git run or read anything else. */
function configReason(setting: ShellWord | undefined): string | undefined {
  if (setting === undefined) return "git -c is given no setting";
  if (!setting.literal) return `git -c sets ${shown(setting.text)}, which is only known when the shell runs`;
  const key = setting.text.split("=")[0] ?? "";
  if (harmlessConfigKey(key)) return undefined;
  return `git -c ${shown(setting.text)} sets "${key}", a setting that can make git run another program or read settings and code from elsewhere`;
}

const FLAG_GLOBALS = new Set([
  "-p",
  "--paginate",
  "-P",
  "--no-pager",
  "--bare",
  "--no-replace-objects",
  "--no-lazy-fetch",
  "--no-optional-locks",
  "--no-advice",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
]);
const PRINT_GLOBALS =
  /^(--version|-v|--help|-h|--html-path|--man-path|--info-path|--exec-path|--list-cmds=.*)$/;

/** Split a git command line (the arguments after `git`). */
export function parseGit(args: readonly ShellWord[]): GitCommand {
  const folders: ShellWord[] = [];
  const unclear: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal) {
      unclear.push(
        `git is given ${shown(a.text)}, which is only known when the shell runs and could be an option or the subcommand`,
      );
      return { folders, subcommand: undefined, args: args.slice(i + 1), unclear, printsOnly: false };
    }
    const text = a.text;
    const [option, inline] =
      text.startsWith("--") && text.includes("=")
        ? (text.split(/=(.*)/s) as [string, string])
        : [text, undefined];
    if (!text.startsWith("-")) {
      return { folders, subcommand: text, args: args.slice(i + 1), unclear, printsOnly: false };
    }
    if (PRINT_GLOBALS.test(text))
      return { folders, subcommand: undefined, args: [], unclear, printsOnly: true };
    if (FLAG_GLOBALS.has(text)) continue;
    if (text === "-C") {
      const folder = args[++i];
      if (folder !== undefined) folders.push(folder);
    } else if (text.startsWith("-C")) {
      // `-C/path`: the git here refuses it (an unknown option), one that took it would enter
      // /path; judged as `-C /path`, what it may do either way is seen.
      folders.push({ text: text.slice(2), literal: true });
    } else if (text === "-c" || /^-c./.test(text)) {
      const setting = text === "-c" ? args[++i] : { text: text.slice(2), literal: true };
      const reason = configReason(setting);
      if (reason !== undefined) unclear.push(reason);
    } else if (option === "--config-env") {
      unclear.push(
        `git ${text} takes configuration from the environment, which can make git run another program`,
      );
      if (inline === undefined) i++;
    } else if (option === "--exec-path") {
      unclear.push(`git ${text} makes git run its subcommands from another folder`);
    } else if (
      option === "--git-dir" ||
      option === "--work-tree" ||
      option === "--super-prefix" ||
      option === "--shallow-file"
    ) {
      unclear.push(
        `git ${text} makes git use another repository or work tree, with its own settings and hooks`,
      );
      if (inline === undefined) i++;
    } else if (option === "--namespace" || option === "--attr-source") {
      if (inline === undefined) i++;
    } else {
      unclear.push(`git is given the option ${shown(text)}, which Lathe does not know`);
    }
  }
  return { folders, subcommand: undefined, args: [], unclear, printsOnly: false };
}

/** Options of the reading subcommands whose value is a pattern, a format or a date, never a path or an option. */
export const GIT_TEXT_VALUE_OPTIONS = /^(-m|--grep|--author|-S|-G|-e|--format|--pretty|-n|--since|--until)$/;

/** Whether `text` is `--name` or an abbreviation of it git accepts (at least `min` letters), with or without `=value`. */
export function longOption(text: string, name: string, min: number): boolean {
  const option = text.split("=")[0] ?? "";
  return option.startsWith("--") && option.length >= min + 2 && name.startsWith(option.slice(2));
}

/**
 * Subcommands whose words past the options are only revisions and paths in the repository, and
 * which need one (no implicit --no-index as `git diff a b` outside a repository): a plain glob
 * there is read against the disk when the call is decided (option-like-file-names.ts), so a
 * matched name starting with `-` still needs a person.
 */
export const GIT_GLOB_OPERANDS: ReadonlySet<string> = new Set([
  "log",
  "show",
  "shortlog",
  "whatchanged",
  "ls-files",
  "blame",
  "annotate",
]);

/** Whether `word` is a plain glob `git <sub>` may be given where an option could stand. */
export function gitGlobOperand(sub: string, word: ShellWord): boolean {
  return GIT_GLOB_OPERANDS.has(sub) && isPlainGlob(word);
}
