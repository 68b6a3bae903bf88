/**
 * What the model must be told about each locked tool to call it correctly: every instruction in
 * the tool's definition that changes what a model does — when to use it rather than another
 * tool, rules the engine enforces (read before write, exactly one match, one command per fresh
 * shell), limits and what to do past them, and how to recover from a refusal. Written from the
 * definitions as they stood before they were shortened (commit d6152f1), so a shorter text must
 * still say each of these; the wording may change, the fact may not.
 *
 * Each fact is checked against the tool's model-facing text (its description and the words of
 * its parameters schema as the model receives it: property names, descriptions, enums, defaults,
 * bounds) with `match`: every pattern must be found, case-insensitive, whitespace collapsed.
 * Patterns carry alternatives for equivalent wordings, so they pin the meaning, not a sentence.
 *
 * Left out on purpose, because the result or the error a model gets says it when it matters, or
 * a model would not call differently for knowing it: the shape of each result (it arrives as
 * JSON with named fields), that a write is atomic, that colours are off in bash, 128 + signal
 * exit codes, the order of grep's results, how a very long matching line is cut, where a BOM
 * goes, `$` before `\r`, and that an edit too large to diff was still made (its `diff_omitted`
 * says so).
 */
export interface RequiredFact {
  tool: string;
  id: string;
  /** The instruction, and what a model does differently for knowing it. */
  fact: string;
  match: readonly RegExp[];
}

const f = (tool: string, id: string, fact: string, ...match: RegExp[]): RequiredFact => ({
  tool,
  id,
  fact,
  match,
});

// prettier-ignore
export const REQUIRED_FACTS: readonly RequiredFact[] = [
  // read
  f("read", "read.before-change", "read a file before write/edit replace it (they refuse otherwise)", /before/, /(write|edit)/, /refuse|fail|must/),
  f("read", "read.relative", "paths are relative to the workspace root", /relative to the (workspace )?root/),
  f("read", "read.sidecar", "read the output_path of a truncated result to see all of it", /output_path/, /truncated/),
  f("read", "read.no-line-numbers", "content comes without line numbers (copy it as is into edit)", /(no|without) line numbers/),
  f("read", "read.offset-limit", "offset (1-based first line) and limit (line count) read part of a large file", /offset/, /1-based/, /limit/),
  f("read", "read.continue", "a cut result has truncated: true; continue at offset = end_line + 1", /truncated/, /end_line ?\+ ?1/),
  f("read", "read.result-cap", "results are cut at 200 KB", /200 ?kb/),
  f("read", "read.text-only", "binary files and directories are refused", /binary/, /director(y|ies)/),
  f("read", "read.huge-files", "files over 100 MB are refused: search them with grep", /100 ?mb/, /grep/),
  f("read", "read.encodings", "UTF-8, UTF-16 and latin1 files are decoded", /utf-8/, /utf-16/, /latin1/),

  // write
  f("write", "write.whole-file", "creates a file or replaces all of its content", /creat/, /(whole|entire|all of)/),
  f("write", "write.prefer-edit", "prefer edit for a partial change", /edit/, /part/),
  f("write", "write.relative", "paths are relative to the workspace root", /relative to the (workspace )?root/),
  f("write", "write.mkdir", "missing parent folders are created (no mkdir needed)", /(parent )?folders are created|creates? (missing )?(parent )?folders/),
  f("write", "write.exact", "content is written exactly as given, line endings included", /exactly/, /line endings/),
  f("write", "write.read-first", "replacing an existing file needs a read in this session, unchanged since", /read/, /this session/, /changed (on disk )?since|unchanged/),
  f("write", "write.new-no-read", "creating a new file needs no read", /new file needs no read|no read (is )?needed for a new file|creating a new file needs no read/),
  f("write", "write.keeps-encoding", "an existing file keeps its encoding", /keeps? its (encoding|line endings and encoding|encoding and)/),

  // edit
  f("edit", "edit.replace", "replaces old_string with new_string in an existing file", /old_string/, /new_string/, /replac/),
  f("edit", "edit.use-write", "to create a file or replace all of it use write", /write/, /creat/),
  f("edit", "edit.exact", "old_string must match exactly, whitespace and indentation included", /exact/, /whitespace/, /indentation/),
  f("edit", "edit.copy-from-read", "copy old_string from read's output without line numbers", /read/, /line numbers/),
  f("edit", "edit.unique", "old_string must occur exactly once unless replace_all", /exactly once/, /replace_all/),
  f("edit", "edit.disambiguate", "if old_string occurs several times, add surrounding lines", /surrounding (lines|text|context)/),
  f("edit", "edit.differ", "new_string must differ from old_string", /differ/),
  f("edit", "edit.non-empty", "old_string must not be empty", /non-empty|not (be )?empty|minlength 1/),
  f("edit", "edit.line-endings", "\\n works in CRLF files: the file keeps its line endings", /crlf/, /keeps? its line endings/),
  f("edit", "edit.read-first", "the file must have been read in this session and unchanged since", /read/, /this session/, /changed (on disk )?since|unchanged/),
  f("edit", "edit.relative", "paths are relative to the workspace root", /relative to the (workspace )?root/),
  f("edit", "edit.replace-all", "replace_all replaces every occurrence", /replace_all/, /every occurrence/),

  // glob
  f("glob", "glob.by-name", "finds files by name with a glob pattern", /glob/, /name/),
  f("glob", "glob.use-grep", "to search inside files use grep", /inside files|file contents/, /grep/),
  f("glob", "glob.newest-first", "results are newest (most recently modified) first", /newest|most recently modified/),
  f("glob", "glob.relative-to-path", "pattern is relative to path (default: the workspace root)", /relative to .?path/),
  f("glob", "glob.syntax", "** matches any number of folders", /\*\*/, /any (number of )?(folders|depth)/),
  f("glob", "glob.star-one-folder", '* matches within one folder: "*.md" is only the top level', /(within|in) one folder/),
  f("glob", "glob.no-absolute", "no absolute path or .. in pattern: choose the folder with path", /absolute/, /\.\./),
  f("glob", "glob.gitignore", "files excluded by .gitignore are left out", /\.gitignore/),
  f("glob", "glob.symlinks", "symlinked folders are not followed", /symlinked folders (are )?not followed/),
  f("glob", "glob.files-only", "only files are listed, not folders", /only files|not folders|files only/),
  f("glob", "glob.cap", "at most 1000 paths; then truncated with output_path holding all", /1000/, /output_path/),
  f("glob", "glob.limit", "limit returns only the newest N paths", /limit/, /newest/),
  f("glob", "glob.hidden", "hidden files match like any other", /hidden/),

  // grep
  f("grep", "grep.contents", "searches file contents with a regular expression", /regular expression|regex/, /content/),
  f("grep", "grep.use-glob", "to find files by name use glob", /by name/, /glob/),
  f("grep", "grep.js-regex", "pattern is a JavaScript regular expression", /javascript/),
  f("grep", "grep.line-by-line", "matched line by line (no multi-line matches)", /line by line|per line|single line/),
  f("grep", "grep.escape", "escape special characters to match them literally", /escape/),
  f("grep", "grep.ignore-case", "ignore_case makes the search case-insensitive", /ignore_case/, /case/),
  f("grep", "grep.path", "path is a file or folder relative to the workspace root", /file or folder/, /relative to the (workspace )?root/),
  f("grep", "grep.glob-filter", "glob without / matches file names anywhere, with / the path; ! excludes", /glob/, /without .?\/.?|no .?\/.?/, /!/, /exclude/),
  f("grep", "grep.modes", "output_mode: files_with_matches (default), content (lines with numbers), count", /files_with_matches/, /content/, /count/, /default/),
  f("grep", "grep.gitignore", "files excluded by .gitignore and binary files are skipped", /\.gitignore/, /binary/),
  f("grep", "grep.symlinks", "symlinked folders are not followed", /symlinked folders (are )?not followed/),
  f("grep", "grep.cap", "at most 200 entries; then truncated with output_path holding all", /200/, /output_path/),
  f("grep", "grep.narrow", "narrow the pattern, path or glob to see fewer", /narrow/),

  // bash
  f("bash", "bash.one-command", "runs one command line in bash and returns output and exit code", /bash/, /exit.?code/),
  f("bash", "bash.when", "use it for tests, builds, git, package managers", /test/, /build/, /git/),
  f("bash", "bash.prefer-file-tools", "prefer read/grep/glob/edit/write for files", /read/, /grep/, /glob/, /edit/, /write/),
  f("bash", "bash.fresh-shell", "nothing carries over between calls (no cd, no variables)", /nothing carries over|fresh/, /cd/),
  f("bash", "bash.cwd", "cwd runs it in a folder relative to the root", /cwd/, /relative to the (workspace )?root/),
  f("bash", "bash.allowed", "every command in a line must be one the session allows", /allow/),
  f("bash", "bash.combined", "stdout and stderr come combined", /stdout/, /stderr/),
  f("bash", "bash.cap", "up to 200 KB; past that output_path holds it all, read it with read", /200 ?kb/, /output_path/),
  f("bash", "bash.nonzero", "a non-zero exit_code is not a failed call: look at the output", /non-zero/, /not a fail/),
  f("bash", "bash.timeout", "stops after 120 s by default; timeout_ms up to 600000", /120 ?s|120 seconds|120000/, /timeout_ms/, /600000/),
  f("bash", "bash.no-background", "background jobs are stopped: do not start servers or watchers", /background/, /servers?/),
  f("bash", "bash.no-stdin", "stdin is empty: no interactive programs; use non-interactive flags", /stdin|interactive/, /non-interactive/),

  // todo
  f("todo", "todo.visible", "the person sees the list live", /person sees|shown to the person|the person/),
  f("todo", "todo.when", "use it for work with several steps; skip for trivial tasks", /several steps|multi-step/, /skip|trivial/),
  f("todo", "todo.plan-first", "write the whole plan first, then update as you go", /whole plan|plan first/),
  f("todo", "todo.progress", "mark a step in_progress when starting, completed as soon as done", /in_progress/, /completed/),
  f("todo", "todo.replaces", "each call replaces the whole list: send every item, in order", /replaces/, /every item|whole list|all items/),
  f("todo", "todo.clear", "an empty list clears it", /empty list/),
  f("todo", "todo.one-active", "at most one item in_progress", /(at most|only) one/, /in_progress/),
  f("todo", "todo.statuses", "statuses are pending, in_progress, completed", /pending/, /in_progress/, /completed/),

  // question
  f("question", "question.when", "ask when a choice is the person's and guessing wrong would waste work", /guess/),
  f("question", "question.not-findable", "do not ask what you can find out with the other tools", /find out yourself|find (it )?out with|can find out/),
  f("question", "question.not-permission", "do not ask for permission to run tools", /permission/),
  f("question", "question.options", "with options the person picks labels; without, free text", /options?/, /free.?text/),
  f("question", "question.multi", "multi_select allows several choices", /multi_select/),
  f("question", "question.option-count", "offer 2-20 options, recommended first", /2-20|minitems 2 maxitems 20/, /recommended/),
  f("question", "question.distinct", "option labels must be distinct (a repeated label is refused)", /distinct/),
  f("question", "question.labels-back", "answers repeat the chosen labels exactly", /label/, /(repeat|exactly as)/),
  f("question", "question.headless", "when no one can answer the call fails: continue with best judgement, state assumptions", /judg(e)?ment/, /assumptions/),
  f("question", "question.header", "header is a short title of a few words", /header/, /title/),

  // skill
  f("skill", "skill.listed", "the system prompt lists the skills", /system prompt/),
  f("skill", "skill.when", "when a task matches a skill, load it before starting and follow it", /before/, /follow/),
  f("skill", "skill.exact-name", "pass the name exactly as listed", /exactly as listed|name as listed|listed name/),
  f("skill", "skill.relative-files", "files the instructions mention are relative to the SKILL.md's folder", /relative to/, /folder/),

  // task
  f("task", "task.subagent", "delegates a self-contained piece of work to a subagent", /subagent/, /self-contained/),
  f("task", "task.fresh", "the subagent sees only the prompt, not this conversation", /only (your |the )?prompt|not (see )?this conversation/),
  f("task", "task.brief", "write a complete brief: goal, files, constraints, what to report", /goal/, /constraints/, /report/),
  f("task", "task.permissions", "same folder, same or fewer permissions; its calls count against your budgets", /permissions/, /budget/),
  f("task", "task.label", "description is a short label of 3-10 words", /3-10 words/),
  f("task", "task.agent", "agent picks another agent by id; default your own", /agent/, /default/),
  f("task", "task.background", "background starts it and returns task_id at once", /background/, /task_id/),
  f("task", "task.wait", "call task with task_id alone later to wait for its result", /task_id/, /alone/, /wait/),
  f("task", "task.start-needs", "description and prompt are required to start a task", /required to start/),
  f("task", "task.when", "use it for separable work that would flood your context; do small things yourself", /flood/, /small things yourself/),

  // web_fetch
  f("web_fetch", "web_fetch.http", "fetches one http(s) URL", /https?:\/\//),
  f("web_fetch", "web_fetch.markdown", "HTML comes back as markdown, text types as they are", /markdown/),
  f("web_fetch", "web_fetch.binary", "images, PDFs and other binary types are refused", /pdf/, /refused/),
  f("web_fetch", "web_fetch.status", "a non-2xx status still returns the page: check status", /non-2xx/, /status/),
  f("web_fetch", "web_fetch.public-only", "local and private addresses are refused unless a person allowed the host in settings", /private/, /settings/),
  f("web_fetch", "web_fetch.max-bytes", "max_bytes caps the body read; a longer body is cut with a note", /max_bytes/, /cut/),
  f("web_fetch", "web_fetch.timeout", "the whole fetch must finish within its time limit", /within \d+ ?s/),
  f("web_fetch", "web_fetch.sidecar", "content over 200 KB: truncated, output_path holds it all (read it)", /200 ?kb/, /output_path/),
  f("web_fetch", "web_fetch.redirects", "redirects are followed", /redirect/),

  // web_search
  f("web_search", "web_search.results", "returns results with title, url and snippet", /title/, /url/, /snippet/),
  f("web_search", "web_search.then-fetch", "read the pages that matter with web_fetch; snippets are not the pages", /web_fetch/, /snippet/),
  f("web_search", "web_search.when", "for what you do not know or that may have changed", /(do not|don't) know|may have changed/),
  f("web_search", "web_search.quota", "a fixed number of searches per session: make each query specific", /\d+ searches per session/, /specific/),
  f("web_search", "web_search.max-results", "max_results is 1 to 20, default 8", /max_results/, /20/, /default(s to)? 8/),

  // tool_search
  f("tool_search", "tool_search.deferred", "deferred tools show only their names; search before calling one", /deferred/, /names?/, /before/),
  f("tool_search", "tool_search.query", "query: words for the task, words from the name, or the exact name", /exact name/),
  f("tool_search", "tool_search.not-deferred", "tools not deferred are already available", /already available/),
  f("tool_search", "tool_search.next-step", "found tools can be called from the next step on", /next step/),
  f("tool_search", "tool_search.empty", "when nothing matched, try other or fewer words", /other or fewer words|fewer words/),
  f("tool_search", "tool_search.max-results", "max_results, 5 by default", /max_results/, /default 5|5 by default/),
];

/** A tool's definition as the model receives it. */
export interface ModelFacingDefinition {
  id: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The words of a schema: every key and every string, number and boolean value, in order. */
function schemaWords(value: unknown, out: string[]): string[] {
  if (Array.isArray(value)) {
    for (const item of value) schemaWords(item, out);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      schemaWords(item, out);
    }
  } else if (value !== null && value !== undefined) {
    out.push(String(value));
  }
  return out;
}

/** What the facts are matched against: the description and the schema's words, lower case, whitespace collapsed. */
export function modelFacingText(definition: ModelFacingDefinition): string {
  return [definition.description, ...schemaWords(definition.parameters, [])]
    .join(" ")
    .toLowerCase()
    .replace(/\s+/g, " ");
}

/** The facts the definitions do not state (a tool that is missing states none of its facts). */
export function missingFacts(definitions: readonly ModelFacingDefinition[]): RequiredFact[] {
  const texts = new Map(definitions.map((d) => [d.id, modelFacingText(d)]));
  return REQUIRED_FACTS.filter((fact) => {
    const text = texts.get(fact.tool);
    return text === undefined || !fact.match.every((pattern) => pattern.test(text));
  });
}
