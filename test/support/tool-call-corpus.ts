/**
 * Task prompts as a person writes them, each with the call a model should make for it — the
 * locked tool and its key arguments — and the facts (ids in locked-tool-facts.ts) the model
 * needs from the tool definitions to make that call rather than a wrong one: which tool fits,
 * which argument says what it wants, the rule it must follow. Used by the offline tool-call
 * accuracy proxy (test/locked-tool-definitions.test.ts, bench/tool-definitions.bench.ts): a
 * prompt counts as supported by a set of definitions when its call is valid against the tool's
 * schema, names only parameters the model is shown, and every fact it needs is stated.
 */
import { validateArguments } from "../../src/main/engine/tools/argument-validator.ts";
import type { JsonSchema } from "../../src/main/engine/tools/contract.ts";
import { missingFacts, type ModelFacingDefinition } from "./locked-tool-facts.ts";

export interface CorpusCall {
  prompt: string;
  tool: string;
  args: Record<string, unknown>;
  needs: readonly string[];
}

const c = (prompt: string, tool: string, args: Record<string, unknown>, ...needs: string[]): CorpusCall => ({
  prompt,
  tool,
  args,
  needs,
});

// prettier-ignore
export const TOOL_CALL_CORPUS: readonly CorpusCall[] = [
  // read
  c("What does src/index.ts export?", "read", { path: "src/index.ts" }, "read.relative"),
  c("Fix the typo in README.md (first look at it)", "read", { path: "README.md" }, "read.before-change", "read.no-line-numbers"),
  c("Show me lines 400 to 450 of the big log parser", "read", { path: "src/log-parser.ts", offset: 400, limit: 51 }, "read.offset-limit"),
  c("The read of data.csv came back truncated at line 5120; go on", "read", { path: "data.csv", offset: 5121 }, "read.continue", "read.result-cap"),
  c("The test run's output was cut; look at the whole of it", "read", { path: ".lathe/outputs/bash-1.txt" }, "read.sidecar"),
  c("Open the legacy latin1 config file and tell me the port", "read", { path: "legacy/app.ini" }, "read.encodings"),
  c("Find the error in the 300 MB server log", "grep", { pattern: "ERROR", path: "logs/server.log", output_mode: "content" }, "read.huge-files", "grep.path"),
  c("What's in the assets/logo.png file?", "bash", { command: "file assets/logo.png" }, "read.text-only", "bash.when"),

  // write
  c("Create a .env.example with PORT=3000", "write", { path: ".env.example", content: "PORT=3000\n" }, "write.whole-file", "write.new-no-read"),
  c("Add docs/guides/setup.md explaining how to install", "write", { path: "docs/guides/setup.md", content: "# Setup\n\nRun npm install.\n" }, "write.mkdir", "write.relative"),
  c("Rewrite config.json from scratch with only the name field (you read it already)", "write", { path: "config.json", content: '{ "name": "app" }\n' }, "write.whole-file", "write.read-first"),
  c("Save this Windows batch file with CRLF line endings", "write", { path: "build.bat", content: "@echo off\r\nnpm run build\r\n" }, "write.exact"),
  c("Replace the contents of the UTF-16 resource file (read already) with the new strings", "write", { path: "res/strings.txt", content: "hello=Hallo\n" }, "write.keeps-encoding", "write.read-first"),

  // edit
  c("Rename the variable count to total on line 12 of src/stats.ts (already read)", "edit", { path: "src/stats.ts", old_string: "let count = 0;", new_string: "let total = 0;" }, "edit.replace", "edit.read-first", "edit.exact"),
  c("Rename fetchUser to loadUser everywhere in src/api.ts (already read)", "edit", { path: "src/api.ts", old_string: "fetchUser", new_string: "loadUser", replace_all: true }, "edit.replace-all", "edit.unique"),
  c("Change the second `return null;` in utils.ts to return undefined (it occurs three times)", "edit", { path: "src/utils.ts", old_string: "  if (!b) {\n    return null;", new_string: "  if (!b) {\n    return undefined;" }, "edit.unique", "edit.disambiguate"),
  c("Indent fix: the nested if in parse.py uses 8 spaces, make it 4", "edit", { path: "parse.py", old_string: "        if x:", new_string: "    if x:" }, "edit.exact", "edit.copy-from-read"),
  c("Change the version in package.json to 2.0.0 (read already)", "edit", { path: "package.json", old_string: '"version": "1.4.2"', new_string: '"version": "2.0.0"' }, "edit.replace", "edit.relative"),
  c("Add a line to the CRLF file windows.ini after [core]", "edit", { path: "windows.ini", old_string: "[core]\n", new_string: "[core]\nautocrlf=true\n" }, "edit.line-endings"),
  c("Delete the debug console.log in app.js (read already)", "edit", { path: "app.js", old_string: '  console.log("debug", state);\n', new_string: "" }, "edit.non-empty", "edit.differ"),
  c("Edit src/new-module.ts, which does not exist yet, to contain a stub", "write", { path: "src/new-module.ts", content: "export {};\n" }, "edit.use-write"),

  c("Change the port in server.ts from 3000 to 8080 (read already)", "edit", { path: "server.ts", old_string: "listen(3000)", new_string: "listen(8080)" }, "write.prefer-edit", "edit.replace"),

  // glob
  c("List every TypeScript file in the project", "glob", { pattern: "**/*.ts" }, "glob.by-name", "glob.syntax"),
  c("Which Markdown files sit at the top of docs/?", "glob", { pattern: "*.md", path: "docs" }, "glob.star-one-folder", "glob.relative-to-path"),
  c("What test files changed most recently?", "glob", { pattern: "**/*.test.ts", limit: 10 }, "glob.newest-first", "glob.limit"),
  c("Find the config files in /etc/nginx-like folder conf/ of the repo", "glob", { pattern: "**/*.conf", path: "conf" }, "glob.no-absolute"),
  c("Are there any dotfiles like .eslintrc.json in the root?", "glob", { pattern: ".*" }, "glob.hidden"),
  c("List all the files under src (there are thousands)", "glob", { pattern: "src/**" }, "glob.cap", "glob.files-only"),
  c("Is the dist build output in the repo?", "bash", { command: "git check-ignore -v dist" }, "glob.gitignore", "bash.when"),

  c("Which files mention the word 'deprecated'?", "grep", { pattern: "deprecated" }, "glob.use-grep", "grep.contents"),

  // grep
  c("Where is parseConfig defined?", "grep", { pattern: "function parseConfig", output_mode: "content" }, "grep.contents", "grep.modes"),
  c("Which files import lodash?", "grep", { pattern: 'from "lodash"' }, "grep.modes", "grep.contents"),
  c("How many TODOs per file in src?", "grep", { pattern: "TODO", path: "src", output_mode: "count" }, "grep.modes"),
  c("Find calls to foo( in the Python sources", "grep", { pattern: "foo\\(", glob: "*.py" }, "grep.escape", "grep.glob-filter", "grep.js-regex"),
  c("Search for 'deprecated' regardless of case", "grep", { pattern: "deprecated", ignore_case: true }, "grep.ignore-case"),
  c("Find uses of eval outside the minified bundles", "grep", { pattern: "\\beval\\(", glob: "!*.min.js" }, "grep.glob-filter"),
  c("Which lines end with a trailing comma in the JSON fixtures?", "grep", { pattern: ",$", glob: "test/fixtures/**/*.json", output_mode: "content" }, "grep.line-by-line", "grep.glob-filter"),
  c("Find the file called webpack.config.js", "glob", { pattern: "**/webpack.config.js" }, "grep.use-glob", "glob.by-name"),
  c("Grep for 'import' returned a truncated list; narrow to src/components", "grep", { pattern: "^import ", path: "src/components" }, "grep.cap", "grep.narrow"),
  c("Look for the API key pattern in the vendored minified file that .gitignore excludes", "bash", { command: "grep -n 'API_KEY' vendor/lib.min.js" }, "grep.gitignore", "bash.when"),

  // bash
  c("Run the test suite", "bash", { command: "npm test" }, "bash.when", "bash.one-command"),
  c("What's the git status?", "bash", { command: "git status --short" }, "bash.when"),
  c("Run the frontend's lint in packages/web", "bash", { command: "npm run lint", cwd: "packages/web" }, "bash.fresh-shell", "bash.cwd"),
  c("Build the whole monorepo; it takes about 5 minutes", "bash", { command: "npm run build", timeout_ms: 420000 }, "bash.timeout"),
  c("Show the last 5 commits", "bash", { command: "git --no-pager log --oneline -5" }, "bash.no-stdin"),
  c("Install the dependencies without prompts", "bash", { command: "npx --yes pnpm install" }, "bash.no-stdin", "bash.allowed"),
  c("Start the dev server and check it answers", "bash", { command: "npm run build && node dist/check.js" }, "bash.no-background"),
  c("Count lines of code by extension", "bash", { command: "find src -type f | sed 's/.*\\.//' | sort | uniq -c" }, "bash.allowed", "bash.combined"),
  c("The tests failed with exit code 1: what went wrong?", "bash", { command: "npm test 2>&1 | tail -50" }, "bash.nonzero", "bash.cap"),
  c("Show me the contents of src/main.ts", "read", { path: "src/main.ts" }, "bash.prefer-file-tools"),

  // todo
  c("Migrate the project from Jest to Vitest (several steps)", "todo", { todos: [{ content: "Install vitest", status: "in_progress" }, { content: "Port the config", status: "pending" }, { content: "Fix failing tests", status: "pending" } ] }, "todo.when", "todo.plan-first", "todo.statuses", "todo.visible"),
  c("Done installing vitest; move on to the config", "todo", { todos: [{ content: "Install vitest", status: "completed" }, { content: "Port the config", status: "in_progress" }, { content: "Fix failing tests", status: "pending" } ] }, "todo.replaces", "todo.one-active", "todo.progress"),
  c("All steps are done; clear the plan", "todo", { todos: [] }, "todo.clear"),
  c("Add a step to check the coverage report to the plan", "todo", { todos: [{ content: "Install vitest", status: "completed" }, { content: "Port the config", status: "in_progress" }, { content: "Fix failing tests", status: "pending" }, { content: "Check coverage", status: "pending" } ] }, "todo.replaces"),

  // question
  c("Add a database to the app (the person has not said which)", "question", { questions: [{ question: "Which database should the app use?", header: "Database", options: [{ label: "SQLite (recommended)", description: "One file, no server" }, { label: "Postgres" } ] } ] }, "question.when", "question.options", "question.option-count", "question.header"),
  c("Which of the three README sections should be translated? (the person decides)", "question", { questions: [{ question: "Which sections should I translate?", options: [{ label: "Install" }, { label: "Usage" }, { label: "FAQ" }], multi_select: true } ] }, "question.multi", "question.labels-back"),
  c("What should the new CLI be called?", "question", { questions: [{ question: "What name should the CLI have?" }] }, "question.options", "question.not-findable"),
  c("Before running npm test, ask whether that's OK", "bash", { command: "npm test" }, "question.not-permission"),

  c("In CI (no one to ask), pick a license for the new package", "write", { path: "LICENSE", content: "MIT License\n" }, "question.headless"),

  // skill
  c("Write the release notes (the system prompt lists a release-notes skill)", "skill", { name: "release-notes" }, "skill.listed", "skill.when", "skill.exact-name"),
  c("Use the pdf skill's helper script on report.pdf", "bash", { command: "python3 .lathe/skills/pdf/scripts/extract.py report.pdf" }, "skill.relative-files"),

  // task
  c("Review the whole auth module for security problems while I keep working", "task", { description: "Security review of auth", prompt: "Review src/auth/ for security problems (injection, missing checks, secrets in logs). Report at most ten findings with file and line.", background: true }, "task.subagent", "task.brief", "task.background", "task.label", "task.start-needs"),
  c("Is the background review done? Get its result", "task", { task_id: "t-1" }, "task.wait"),
  c("Have the docs agent update the API reference", "task", { description: "Update the API reference", prompt: "Update docs/api.md for the new endpoints in src/routes/*.ts; report what changed.", agent: "docs" }, "task.agent", "task.fresh"),
  c("Rename one variable in a file you already read", "edit", { path: "src/a.ts", old_string: "const x =", new_string: "const width =" }, "task.when"),

  c("Have a subagent push the release tag, which you are not allowed to do", "question", { questions: [{ question: "Pushing tags is not allowed for me or a subagent; will you push v2.0.0 yourself?" } ] }, "task.permissions"),

  // web_fetch
  c("Read the changelog at https://example.com/CHANGELOG.md", "web_fetch", { url: "https://example.com/CHANGELOG.md" }, "web_fetch.http", "web_fetch.markdown"),
  c("Fetch only the start of this 50 MB JSON dump", "web_fetch", { url: "https://data.example.org/dump.json", max_bytes: 100000 }, "web_fetch.max-bytes"),
  c("Check what the old docs URL redirects to now", "web_fetch", { url: "http://docs.example.com/v1/" }, "web_fetch.redirects", "web_fetch.status"),

  c("Read the spec PDF at https://example.com/spec.pdf", "web_search", { query: "example spec HTML version" }, "web_fetch.binary", "web_search.when"),
  c("Check the internal wiki page http://10.0.0.5/wiki/Deploy", "question", { questions: [{ question: "web_fetch refuses private addresses unless the host is allowed in settings. Will you allow 10.0.0.5, or paste the page?" } ] }, "web_fetch.public-only"),
  c("The fetched API reference came back truncated; read the rest", "read", { path: ".lathe/outputs/web_fetch-1.txt" }, "web_fetch.sidecar", "read.sidecar"),

  // web_search
  c("What's new in the latest Node.js release?", "web_search", { query: "Node.js latest release notes" }, "web_search.when", "web_search.results", "web_search.then-fetch"),
  c("Find the docs for the error ERR_REQUIRE_ESM", "web_search", { query: "ERR_REQUIRE_ESM require() of ES Module fix", max_results: 5 }, "web_search.quota", "web_search.max-results"),

  // tool_search
  c("Open a GitHub issue for this bug (github_create_issue is in the deferred list)", "tool_search", { query: "github_create_issue" }, "tool_search.deferred", "tool_search.query"),
  c("Convert 250 euros to yen (some tools are deferred)", "tool_search", { query: "convert currency", max_results: 3 }, "tool_search.deferred", "tool_search.max-results"),
  c("tool_search for 'kubernetes logs' found nothing; try again", "tool_search", { query: "pod logs" }, "tool_search.empty"),
  c("Run the tests with bash (bash is listed with its full definition)", "bash", { command: "npm test" }, "tool_search.not-deferred"),
  c("Load slack_post_message now so you can post the summary next", "tool_search", { query: "slack_post_message", max_results: 1 }, "tool_search.next-step", "tool_search.query"),
];

/** One tool as the proxy sees it: what the model is shown, and the schema calls are validated against. */
export interface ProxyTool {
  shown: ModelFacingDefinition;
  validation: JsonSchema;
}

/** Argument names (dotted, array items as []) the shown schema does not declare. */
function undeclared(value: unknown, schema: unknown, at: string): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const s = schema as Record<string, unknown>;
  if (Array.isArray(value)) return value.flatMap((item) => undeclared(item, s["items"], `${at}[]`));
  if (typeof value !== "object" || value === null) return [];
  const properties = (s["properties"] ?? {}) as Record<string, unknown>;
  return Object.entries(value).flatMap(([key, item]) =>
    key in properties
      ? undeclared(item, properties[key], `${at}${at ? "." : ""}${key}`)
      : [`${at}${at ? "." : ""}${key}`],
  );
}

/**
 * Why each corpus call is not supported by these definitions (an empty list: it is): the tool is
 * not shown, the call is invalid against its schema, it names a parameter the model is not shown,
 * or a fact it needs is not stated.
 */
export function corpusProblems(tools: readonly ProxyTool[]): Map<CorpusCall, string[]> {
  const byId = new Map(tools.map((t) => [t.shown.id, t]));
  const missing = new Set(missingFacts(tools.map((t) => t.shown)).map((f) => f.id));
  const out = new Map<CorpusCall, string[]>();
  for (const call of TOOL_CALL_CORPUS) {
    const problems: string[] = [];
    const tool = byId.get(call.tool);
    if (!tool) problems.push(`${call.tool} is not shown`);
    else {
      const invalid = validateArguments(call.tool, tool.validation, structuredClone(call.args));
      if (invalid !== undefined) problems.push(invalid);
      for (const name of undeclared(call.args, tool.shown.parameters, ""))
        problems.push(`${name} is not declared`);
    }
    for (const need of call.needs) if (missing.has(need)) problems.push(`fact ${need} is not stated`);
    out.set(call, problems);
  }
  return out;
}
