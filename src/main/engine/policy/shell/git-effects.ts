import { isLongOption } from "./long-option-prefix.ts";
import { effects, joinPath, word, type CommandEffects, type EffectsOf } from "./effect-kit.ts";
import { gitGlobOperand, harmlessConfigKey, longOption, parseGit } from "./git-command.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * git: the files and folders a subcommand writes outside its repository's own bookkeeping
 * (`archive -o`, `format-patch -o`, `diff --output`, `bundle create`, `worktree add`, `clone`,
 * `init`, config files), and every form that runs another program (`-c core.pager=…`,
 * `--upload-pack`, `rebase --exec`, `grep -O`, `difftool`, `bisect run` …) or uses another
 * repository (`--git-dir`, `--work-tree`). Unknown subcommands may be aliases or external
 * `git-*` programs, so they are refused too.
 */

/** Subcommands that run programs of their own choosing, or start servers and schedulers. */
const RUNS_PROGRAMS: Readonly<Record<string, string>> = {
  difftool: "runs a diff tool of its choosing (or the command given by -x)",
  mergetool: "runs a merge tool of its choosing",
  "filter-branch": "runs the shell code given to its filters",
  "send-email": "runs mail programs and commands given to it",
  instaweb: "starts a web server",
  daemon: "starts a git server",
  "web--browse": "starts a web browser",
  gui: "starts a graphical program",
  citool: "starts a graphical program",
  gitk: "starts a graphical program",
  p4: "runs Perforce commands",
  svn: "runs Subversion commands",
  cvsimport: "runs CVS commands",
  cvsserver: "starts a CVS server",
  cvsexportcommit: "runs CVS commands",
  archimport: "runs Arch commands",
  quiltimport: "applies a series of patches named in a file",
  shell: "starts a restricted git shell",
  "credential-cache": "starts a credential daemon",
  "credential-cache--daemon": "starts a credential daemon",
  "credential-store": "stores credentials in a file outside the workspace",
  credential: "reads and stores credentials through helper programs",
  "upload-pack": "serves (and can run hooks in) another repository",
  "receive-pack": "writes into (and runs the hooks of) another repository",
  "upload-archive": "serves another repository",
  "http-fetch": "fetches into a repository over the network",
  "http-push": "pushes over the network",
  hook: "runs the repository's hooks",
  "merge-one-file": "runs merge programs",
  "request-pull": "runs commands against a remote",
  "sh-setup": "is a library of shell code",
  "sh-i18n": "is a library of shell code",
  "mergetool--lib": "is a library of shell code",
};

/** Subcommands git ships, whose writes stay in the repository or the folder it runs in. */
const KNOWN = new Set([
  ..."add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree config count-objects describe diagnose diff diff-files diff-index diff-pairs diff-tree fast-export fast-import fetch fetch-pack for-each-ref for-each-repo format-patch fsck fsck-objects gc get-tar-commit-id grep hash-object help index-pack init init-db interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase reflog refs remote repack replace replay rerere reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info var verify-commit verify-pack verify-tag version whatchanged worktree write-tree".split(
    " ",
  ),
]);

/** Long options (and git's abbreviations of them) that make any subcommand run a program. */
const PROGRAM_OPTIONS: readonly (readonly [string, number, string])[] = [
  ["upload-pack", 2, "runs the program given by --upload-pack"],
  ["receive-pack", 3, "runs the program given by --receive-pack"],
  ["exec", 3, "runs the program or command given by --exec"],
  ["open-files-in-pager", 2, "runs the pager given by --open-files-in-pager"],
  ["extcmd", 3, "runs the command given by --extcmd"],
  ["template", 2, "copies hooks from the template folder given by --template"],
  ["upload-archive", 8, "runs the program given by --upload-archive"],
];

/** `--name=value` or `--name value` (with abbreviations); the value, when the argument is one. */
function valueOf(args: readonly ShellWord[], i: number, name: string, min: number): ShellWord | undefined {
  const a = args[i] as ShellWord;
  if (!a.literal || !longOption(a.text, name, min)) return undefined;
  const eq = a.text.indexOf("=");
  return eq >= 0 ? word(a.text.slice(eq + 1)) : args[i + 1];
}

/** A short option's value: attached (`-ofile`) or the next word. */
function shortValue(args: readonly ShellWord[], i: number, letter: string): ShellWord | undefined {
  const a = args[i] as ShellWord;
  if (!a.literal || !a.text.startsWith(`-${letter}`) || a.text.startsWith("--")) return undefined;
  return a.text.length > 2 ? word(a.text.slice(2)) : args[i + 1];
}

/** Which config file `git config` (or a subcommand that stores settings) writes. */
function configFile(args: readonly ShellWord[]): ShellWord[] {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (a.text === "--global") return [word("~/.gitconfig"), word("~/.config/git/config")];
    if (a.text === "--system") return [word("/etc/gitconfig")];
    if (a.text === "--worktree") return [word(".git/config.worktree")];
    const file = valueOf(args, i, "file", 2) ?? (a.text === "-f" ? args[i + 1] : undefined);
    if (file !== undefined) return [file];
  }
  return [word(".git/config")];
}

const CONFIG_READS =
  /^(--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|-l|--list|get|list)$/;
const CONFIG_WRITES =
  /^(--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|set|unset|rename-section|remove-section)$/;
const CONFIG_VALUE_OPTIONS = new Set([
  "-f",
  "--file",
  "--blob",
  "--type",
  "--default",
  "--comment",
  "--value",
]);

function config(args: readonly ShellWord[]): CommandEffects {
  if (args.some((a) => a.text === "-e" || isLongOption(a.text, "edit") || a.text === "edit")) {
    return effects([], ["git config --edit opens an editor on a config file"]);
  }
  const operands: ShellWord[] = [];
  // git takes a long option by a prefix that names only it: `--rem core` is --remove-section.
  let writes = args.some(
    (a) =>
      CONFIG_WRITES.test(a.text) ||
      isLongOption(a.text, "add", "unset", "unset-all", "replace-all", "rename-section", "remove-section"),
  );
  const reads = args.some((a) => CONFIG_READS.test(a.text));
  // `--includes` with a file of the command's choosing follows its include.path to any file,
  // and prints what is there (`[include] path = ~/.aws/credentials`); the repository's and the
  // user's own config files, read without --file, are theirs.
  const chosen = args.find((a) => a.text === "-f" || isLongOption(a.text, "file", "blob"));
  const includes = args.find((a) => isLongOption(a.text, "includes"));
  if (chosen !== undefined && includes !== undefined)
    return effects(
      [],
      [
        `"git config ${chosen.text} … ${includes.text}" reads the files the config file includes (include.path), which Lathe does not check against the hidden paths; leave out ${includes.text}`,
      ],
    );
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (CONFIG_VALUE_OPTIONS.has(a.text)) i++;
    else if (!a.text.startsWith("-") || !a.literal) operands.push(a);
  }
  const positional = operands.filter(
    (o) => !/^(get|list|set|unset|rename-section|remove-section)$/.test(o.text),
  );
  if (!reads && positional.length >= 2) writes = true;
  if (!writes) return effects();
  const key = positional[0];
  const reasons: string[] = [];
  if (
    key === undefined ||
    !key.literal ||
    (!harmlessConfigKey(key.text) && !/section/.test(args.map((a) => a.text).join(" ")))
  ) {
    reasons.push(
      `git config sets ${shown(key?.text ?? "a setting")}, which can make git run another program or read settings and code from elsewhere`,
    );
  }
  return effects(configFile(args), reasons);
}

/** What one subcommand writes (relative to git's folder) and why it needs a person. */
export function gitSubcommandEffects(sub: string, args: readonly ShellWord[]): CommandEffects {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  const runs = RUNS_PROGRAMS[sub];
  if (runs !== undefined) return effects([], [`git ${sub} ${runs}`]);
  if (!KNOWN.has(sub)) {
    return effects(
      [],
      [`"git ${sub}" is not a git command Lathe knows; it may be an alias or an external git-${sub} program`],
    );
  }
  const operands = args.filter((a) => !(a.literal && a.text.startsWith("-")));
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal) continue;
    for (const [name, min, reason] of PROGRAM_OPTIONS)
      if (longOption(a.text, name, min)) reasons.push(`git ${sub} ${reason}`);
    const output = valueOf(args, i, "output", 2) ?? valueOf(args, i, "output-directory", 8);
    if (output !== undefined) writes.push(output);
    if (sub === "grep" && /^-O/.test(a.text)) reasons.push(`git grep -O runs the pager it is given`);
    if (sub === "clone" || sub === "init") {
      const folder = valueOf(args, i, "separate-git-dir", 3);
      if (folder !== undefined) writes.push(folder);
      if (a.text === "-u") reasons.push(`git ${sub} -u runs the program it is given as upload-pack`);
      const setting = a.text === "-c" || a.text === "--config" ? args[i + 1] : valueOf(args, i, "config", 3);
      if (
        setting !== undefined &&
        (!setting.literal || !harmlessConfigKey(setting.text.split("=")[0] ?? ""))
      ) {
        reasons.push(
          `git ${sub} sets ${shown(setting.text)}, a setting that can make git run another program`,
        );
      }
    }
    if (
      (sub === "archive" ||
        sub === "format-patch" ||
        sub === "index-pack" ||
        sub === "bugreport" ||
        sub === "diagnose") &&
      a.text.startsWith("-o")
    ) {
      const value = shortValue(args, i, "o");
      if (value !== undefined) writes.push(value);
    }
    if (sub === "mailsplit" && /^-o./.test(a.text)) writes.push(word(a.text.slice(2)));
    if (sub === "checkout-index") {
      const prefix = valueOf(args, i, "prefix", 2);
      if (prefix !== undefined) writes.push(prefix);
    }
    if (sub === "fast-import" || sub === "fast-export") {
      const marks = valueOf(args, i, "export-marks", 2);
      if (marks !== undefined) writes.push(marks);
    }
    if (
      sub === "rebase" &&
      (a.text === "-x" || /^-x./.test(a.text) || a.text === "-i" || longOption(a.text, "interactive", 3))
    ) {
      reasons.push(`git rebase ${a.text} runs commands or an editor on the todo list`);
    }
    if (sub === "apply" && longOption(a.text, "unsafe-paths", 2))
      reasons.push("git apply --unsafe-paths writes outside the repository");
    if (sub === "interpret-trailers" && longOption(a.text, "in-place", 2)) writes.push(...operands);
  }
  switch (sub) {
    case "config":
      return config(args);
    case "remote":
    case "submodule":
      if (operands[0] !== undefined && /^(foreach)$/.test(operands[0].text)) {
        reasons.push(`git ${sub} foreach runs shell code in every submodule`);
      } else if (operands.length > 0 && !/^(show|get-url|-v|status|summary)$/.test(operands[0]?.text ?? "")) {
        writes.push(word(".git/config"));
      }
      break;
    case "branch":
      if (args.some((a) => a.literal && /^-u|^--set-upstream|^--unset-upstream/.test(a.text)))
        writes.push(word(".git/config"));
      if (args.some((a) => a.literal && longOption(a.text, "edit-description", 2)))
        reasons.push("git branch --edit-description opens an editor");
      break;
    case "bisect":
      if (operands[0]?.text === "run")
        reasons.push("git bisect run runs the command it is given for every step");
      break;
    case "maintenance":
      if (/^(start|stop|register|unregister)$/.test(operands[0]?.text ?? "")) {
        reasons.push(
          `git maintenance ${operands[0]?.text ?? ""} changes scheduled tasks and the global config outside the workspace`,
        );
      }
      break;
    case "bundle":
      if (operands[0]?.text === "create" && operands[1] !== undefined) writes.push(operands[1]);
      break;
    case "worktree":
      if (operands[0]?.text === "add" && operands[1] !== undefined) writes.push(operands[1]);
      if (operands[0]?.text === "move" && operands[2] !== undefined) writes.push(operands[2]);
      break;
    case "clone": {
      const [source, target] = operands;
      if (target !== undefined) writes.push(target);
      else if (source !== undefined)
        writes.push({
          ...source,
          text:
            source.text
              .replace(/\/+$/, "")
              .replace(/^.*[/:]/, "")
              .replace(/\.git$/, "") || ".",
        });
      break;
    }
    case "init":
    case "init-db":
      writes.push(operands[0] ?? word("."));
      break;
    case "merge-file":
      if (!args.some((a) => a.text === "-p" || a.text === "--stdout") && operands[0] !== undefined)
        writes.push(operands[0]);
      break;
    case "mailinfo":
      writes.push(...operands.slice(0, 2));
      break;
    case "pack-objects":
      if (operands[0] !== undefined) writes.push({ ...operands[0], text: `${operands[0].text}-pack` });
      break;
    default:
      break;
  }
  return effects(writes, reasons);
}

export const git: EffectsOf = (_program, args) => {
  const parsed = parseGit(args);
  if (parsed.printsOnly) return effects();
  const reasons = [...parsed.unclear];
  // A repository elsewhere brings its own hooks and settings: -C counts as a write there.
  const writes: ShellWord[] = [];
  let folder: ShellWord | undefined;
  for (const f of parsed.folders) {
    folder = folder === undefined ? f : joinPath(folder, f.text);
    writes.push(folder);
  }
  if (parsed.subcommand === undefined) return effects(writes, reasons);
  const sub = gitSubcommandEffects(parsed.subcommand, parsed.args);
  for (const w of sub.writes)
    writes.push(
      folder === undefined || w.text.startsWith("/") || w.text.startsWith("~") ? w : joinPath(folder, w.text),
    );
  reasons.push(...sub.unclear);
  const dynamic = parsed.args.find(
    (a, i) =>
      !a.literal &&
      /^["']?[-$`*?[{]/.test(a.text) &&
      !isOptionValue(parsed.args, i) &&
      !gitGlobOperand(parsed.subcommand ?? "", a),
  );
  if (dynamic !== undefined) {
    reasons.push(
      `git ${parsed.subcommand} is given ${shown(dynamic.text)}, which is only known when the shell runs and could be an option such as --output (write -- before it)`,
    );
  }
  return effects(writes, reasons);
};

/** Options of common subcommands whose value may be any text (a message, an author, a format). */
const TEXT_OPTIONS =
  /^(-m|--message|-F|--file|--author|--date|-b|-B|--branch|--format|--pretty|-n|--max-count|--since|--until|--after|--before|--grep|-S|-G|-e|--trailer|-C|-c)$/;

/** Whether word i is the value of a text option, or comes after `--`. */
function isOptionValue(args: readonly ShellWord[], i: number): boolean {
  if (args.slice(0, i).some((a) => a.literal && a.text === "--")) return true;
  const before = args[i - 1];
  return before !== undefined && before.literal && TEXT_OPTIONS.test(before.text);
}
