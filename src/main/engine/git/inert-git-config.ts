// Which settings in a repository's own git config run nothing: a confined process may leave them
// in a repository it made or changed (sandbox/planted-repos.ts), and a read-only git command may
// run unconfined in a repository that has only them (policy/repository-programs.ts). Git
// has dozens of settings that name a program (`core.fsmonitor`, `core.pager`, `diff.*.textconv`,
// `filter.*.process`, `!` aliases, `include.path` pulling in another file of them…) and new ones
// come with new versions, so the list says what is known to be harmless, not what is dangerous;
// everything else counts as running a program.

/** `section.variable` settings (lower case, as `git config --list` gives them) that run nothing. */
const PLAIN = new Set([
  "core.repositoryformatversion",
  "core.filemode",
  "core.bare",
  "core.logallrefupdates",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.symlinks",
  "core.autocrlf",
  "core.eol",
  "core.safecrlf",
  "core.quotepath",
  "core.compression",
  "core.loosecompression",
  "core.bigfilethreshold",
  "core.sharedrepository",
  "core.whitespace",
  "core.abbrev",
  "core.checkstat",
  "core.trustctime",
  "core.untrackedcache",
  "core.splitindex",
  "core.preloadindex",
  "splitindex.maxpercentchange",
  "splitindex.sharedindexexpire",
  "index.version",
  "index.threads",
  "index.skiphash",
  "feature.manyfiles",
  "core.longpaths",
  "core.sparsecheckout",
  "core.sparsecheckoutcone",
  "core.commentchar",
  "extensions.objectformat",
  "extensions.refstorage",
  "extensions.worktreeconfig",
  "extensions.preciousobjects",
  "extensions.noop",
  "init.defaultbranch",
  "pull.rebase",
  "pull.ff",
  "push.default",
  "push.autosetupremote",
  "push.followtags",
  "fetch.prune",
  "fetch.prunetags",
  "merge.ff",
  "merge.conflictstyle",
  "rebase.autostash",
  "rebase.autosquash",
  "rerere.enabled",
  "gc.auto",
  "http.postbuffer",
  "diff.renames",
  "diff.algorithm",
  "diff.colormoved",
  "diff.mnemonicprefix",
  "diff.noprefix",
  "status.showuntrackedfiles",
  "commit.verbose",
  "log.date",
  "tag.sort",
  "branch.sort",
]);

/** Whole sections none of whose settings name a program. */
const PLAIN_SECTIONS = new Set(["user", "author", "committer", "color", "advice", "i18n", "column"]);

/** `section.<name>.variable` settings that run nothing, by section. */
const NAMED = new Map<string, ReadonlySet<string>>([
  [
    "remote",
    new Set([
      "url",
      "pushurl",
      "fetch",
      "push",
      "tagopt",
      "prune",
      "prunetags",
      "mirror",
      "skipdefaultupdate",
      "promisor",
      "partialclonefilter",
    ]),
  ],
  ["branch", new Set(["remote", "merge", "rebase", "pushremote", "description"])],
  // Not `update`, which may be `!command`.
  ["submodule", new Set(["url", "active", "branch", "fetchrecursesubmodules", "ignore", "shallow"])],
]);

/** What `git lfs install --local` writes: its own program, as its users expect it. */
const LFS_FILTER = new Map([
  ["filter.lfs.clean", "git-lfs clean -- %f"],
  ["filter.lfs.smudge", "git-lfs smudge -- %f"],
  ["filter.lfs.process", "git-lfs filter-process"],
  ["filter.lfs.required", "true"],
]);

/**
 * Whether a setting of a repository's own config runs nothing. `key` as `git config --list`
 * prints it: section and variable in lower case, a subsection as written; `value` undefined for a
 * bare `variable` line.
 */
export function isInertGitSetting(key: string, value: string | undefined): boolean {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first <= 0 || last === key.length - 1) return false;
  const section = key.slice(0, first);
  const variable = key.slice(last + 1);
  if (first === last) return PLAIN.has(key) || PLAIN_SECTIONS.has(section);
  const lfs = LFS_FILTER.get(key);
  if (lfs !== undefined) return value === lfs;
  return NAMED.get(section)?.has(variable) === true;
}
