// Search: our grep against ripgrep and git grep, and our glob against find and fd, on a
// generated tree of more than 20,000 files (nested folders, mixed sizes, some of them ignored
// by .gitignore files at several levels), then glob on a copy of the project's node_modules, in
// process (the whole `lathe call glob` process is in startup.bench.ts). Ours runs through the
// whole engine pipeline (validation, scheduling, envelope, truncation with its sidecar file).
// Goals: grep within 2× of rg; glob faster than find and within 1.5× of fd. Run alone with
// `node bench/search.bench.ts`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { folderListings } from "../src/main/engine/capability/folder-listings.ts";
import { Engine, type Envelope } from "../src/main/engine/index.ts";
import { bareWalk } from "./lib/bare-walk.mjs";
import { ensureModulesCopy, MODULES_COPY } from "./lib/modules-copy.ts";
import { compare, heading, median, skipped } from "./lib/report.ts";

const TREE_VERSION = "search-tree-v1";
const here = path.dirname(fileURLToPath(import.meta.url));
const tree = path.join(here, ".work", "search-tree");
const RUNS = 7;

// ---- the tree ------------------------------------------------------------------------------

/** mulberry32: a small seeded generator, so every machine builds the same tree. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LITERAL = "LATHE_NEEDLE_7f3a";
const REGEX = "fetch[A-Z]\\w*Async\\(";
const REGEX_NO_LITERAL = "\\b[a-z]{4}_[0-9]{4}\\b";

function linePool(rand: () => number): string[] {
  const syllables = ["ka", "lo", "mi", "ne", "ro", "ta", "vi", "zu", "pe", "shi", "dan", "gor", "bel", "tri"];
  const word = (): string =>
    Array.from(
      { length: 2 + Math.floor(rand() * 3) },
      () => syllables[Math.floor(rand() * syllables.length)],
    ).join("");
  const camel = (w: string): string => w[0]!.toUpperCase() + w.slice(1);
  const n = (): number => Math.floor(rand() * 1000);
  const templates = [
    () => `  const ${word()} = ${word()}(${word()}, ${n()});`,
    () => `export function ${word()}${camel(word())}(${word()}: ${camel(word())}): ${camel(word())} {`,
    () => `  // ${word()} ${word()} ${word()} ${word()} ${word()}`,
    () => `  return ${word()}.${word()}(${n()});`,
    () => `import { ${word()} } from "./${word()}/${word()}";`,
    () => `  if (${word()} > ${n()}) { ${word()}++; }`,
    () => `}`,
    () => ``,
  ];
  const pool: string[] = [];
  for (let i = 0; i < 4096; i++) {
    const r = rand();
    if (r < 0.003) pool.push(`  await fetch${camel(word())}Async(${word()});`);
    else if (r < 0.006)
      pool.push(`  const id = "${word().slice(0, 4).padEnd(4, "x")}_${String(n()).padStart(4, "0")}";`);
    else pool.push(templates[Math.floor(rand() * templates.length)]!());
  }
  return pool;
}

interface TreeStats {
  files: number;
  ignored: number;
  bytes: number;
}

/** Build the tree once (deterministically); later runs reuse it while its version matches. */
function ensureTree(): TreeStats {
  const marker = path.join(tree, ".lathe-bench-tree");
  if (existsSync(marker)) {
    const saved = JSON.parse(readFileSync(marker, "utf8")) as TreeStats & { version: string };
    if (saved.version === TREE_VERSION) return saved;
  }
  const started = performance.now();
  rmSync(tree, { recursive: true, force: true });
  const rand = random(20_000);
  const pool = linePool(rand);
  const stats: TreeStats = { files: 0, ignored: 0, bytes: 0 };
  const exts = ["ts", "ts", "ts", "js", "md", "json", "py", "txt"];
  const content = (): string => {
    const r = rand();
    const lines = r < 0.75 ? 5 + rand() * 55 : r < 0.97 ? 60 + rand() * 340 : 400 + rand() * 2100;
    const out: string[] = [];
    for (let i = 0; i < lines; i++) out.push(pool[Math.floor(rand() * pool.length)]!);
    if (rand() < 0.005) out.splice(Math.floor(rand() * out.length), 0, `  // ${LITERAL} marks this file`);
    return out.join("\n") + "\n";
  };
  const put = (relative: string, text: string | Buffer, ignored = false): void => {
    const file = path.join(tree, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    stats.files++;
    stats.bytes += typeof text === "string" ? Buffer.byteLength(text) : text.length;
    if (ignored) stats.ignored++;
  };
  put(".gitignore", "node_modules/\n*.log\ndist/\n");
  for (let p = 0; p < 16; p++) {
    const pkg = `packages/pkg-${String(p).padStart(2, "0")}`;
    put(`${pkg}/.gitignore`, "generated/\n*.snap\n!keep.snap\n");
    for (let m = 0; m < 10; m++) {
      for (let s = 0; s < 7; s++) {
        const dir = `${pkg}/src/mod-${m}/sub-${s}`;
        for (let f = 0; f < 20; f++) {
          const ext = exts[Math.floor(rand() * exts.length)]!;
          if (rand() < 0.01) {
            const bin = Buffer.alloc(2048 + Math.floor(rand() * 4096), 7);
            bin[10] = 0;
            bin.write(LITERAL, 100);
            put(`${dir}/blob-${f}.bin`, bin);
          } else put(`${dir}/file-${f}.${ext}`, content());
        }
        if (rand() < 0.2) put(`${dir}/debug-${s}.log`, content(), true);
      }
    }
    for (let g = 0; g < 60; g++) put(`${pkg}/generated/gen-${g}.ts`, content(), true);
    put(`${pkg}/src/keep.snap`, content());
    put(`${pkg}/src/drop.snap`, content(), true);
  }
  for (let d = 0; d < 50; d++) {
    for (let f = 0; f < 30; f++) put(`node_modules/dep-${d}/lib/file-${f}.js`, content(), true);
  }
  const git = spawnSync("git", ["init", "-q"], { cwd: tree });
  if (git.status === 0) spawnSync("git", ["add", "-A"], { cwd: tree, stdio: "ignore" });
  writeFileSync(marker, JSON.stringify({ version: TREE_VERSION, ...stats }));
  console.log(`built the tree in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return stats;
}

// ---- comparators -----------------------------------------------------------------------------

function has(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

/** Install a Debian package when its command is missing; returns why it is still missing, if it is. */
function ensureCommand(cmds: string[], pkg: string): { cmd?: string; why?: string } {
  const found = cmds.find(has);
  if (found) return { cmd: found };
  if (process.getuid?.() !== 0)
    return { why: `${cmds.join("/")} not installed and not root to apt-get install ${pkg}` };
  console.log(`installing ${pkg} from Debian…`);
  let r = spawnSync("apt-get", ["install", "-y", pkg], { stdio: "ignore" });
  if (r.status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "ignore" });
    r = spawnSync("apt-get", ["install", "-y", pkg], { stdio: "ignore" });
  }
  const after = cmds.find(has);
  return after
    ? { cmd: after }
    : { why: `${cmds.join("/")} missing and "apt-get install -y ${pkg}" failed (exit ${r.status})` };
}

/** One way to do the job: a label and a function that runs it once and says how many results it gave. */
interface Contender {
  label: string;
  once(): Promise<number> | number;
}

/** Run a command in a folder (the tree by default); resolves to how many lines it printed. */
function command(label: string, cmd: string, args: string[], cwd = tree, env?: NodeJS.ProcessEnv): Contender {
  return {
    label,
    once() {
      const r = spawnSync(cmd, args, { cwd, env, maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "ignore"] });
      if (r.status !== 0 && r.status !== 1) throw new Error(`${label} exited with ${r.status ?? r.signal}`);
      const out = r.stdout.toString();
      return out === "" ? 0 : out.trimEnd().split("\n").length;
    },
  };
}

/**
 * Median wall time of each contender over RUNS rounds after one warm-up round. Rounds are
 * interleaved (ours, then each comparator) so that load from elsewhere on the machine falls on
 * all of them alike.
 */
async function race(contenders: Contender[], runs = RUNS): Promise<{ ms: number; results: number }[]> {
  const samples = contenders.map(() => [] as number[]);
  const results: number[] = [];
  for (const c of contenders) results.push(await c.once());
  for (let round = 0; round < runs; round++) {
    for (const [i, c] of contenders.entries()) {
      const t0 = performance.now();
      await c.once();
      samples[i]!.push(performance.now() - t0);
    }
  }
  return samples.map((s, i) => ({ ms: median(s), results: results[i]! }));
}

// ---- ours ------------------------------------------------------------------------------------

const stats = ensureTree();
console.log(
  `tree: ${stats.files} files (${stats.ignored} of them ignored by .gitignore), ${(stats.bytes / 1e6).toFixed(0)} MB, in ${path.relative(process.cwd(), tree)}`,
);
const home = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-search-"));
const engine = await Engine.create({ root: tree, latheHome: home });
const session = await engine.openSession();

/** How many entries a result holds in all: the sidecar's lines when it was truncated. */
function entries(envelope: Envelope): number {
  if (envelope.type === "error") throw new Error(envelope.error_text);
  if (envelope.metadata.output_path) {
    return readFileSync(envelope.metadata.output_path, "utf8").trimEnd().split("\n").length;
  }
  const data = envelope.data as { files?: unknown[]; matches?: unknown[]; counts?: unknown[] };
  return (data.files ?? data.matches ?? data.counts ?? []).length;
}

function ours(tool: string, args: Record<string, unknown>, on = session): Contender {
  return { label: `ours`, once: async () => entries(await on.call(tool, args)) };
}

/**
 * The same call with no folder listing kept from earlier walks (folder-listings.ts): what the
 * first search of a tree costs in a process. Raced just before `ours`, which then finds the
 * listings this one kept, as every later call of a session does.
 */
function firstWalk(tool: string, args: Record<string, unknown>, on = session): Contender {
  const again = ours(tool, args, on);
  return {
    label: "ours, first walk",
    once: () => {
      folderListings.clear();
      return again.once();
    },
  };
}

function report(
  what: string,
  mine: { ms: number; results: number },
  label: string,
  theirs: { ms: number; results: number },
  goal?: { text: string; factor: number },
): void {
  compare({
    what,
    ours: { label: `ours (${mine.results})`, value: mine.ms },
    theirs: { label: `${label} (${theirs.results})`, value: theirs.ms },
    ...(goal ? { goal: goal.text, met: mine.ms <= goal.factor * theirs.ms } : {}),
  });
}

const rg = ensureCommand(["rg"], "ripgrep");
const fd = ensureCommand(["fdfind", "fd"], "fd-find");
const gitOk = has("git") && existsSync(path.join(tree, ".git"));

// ---- grep ------------------------------------------------------------------------------------

heading(
  `grep vs rg and git grep (${stats.files} files, median of ${RUNS} interleaved runs; result counts in parentheses)`,
);
const grepCases: { what: string; args: Record<string, unknown>; rg: string[]; git: string[] }[] = [
  {
    what: `literal "${LITERAL}", files_with_matches`,
    args: { pattern: LITERAL },
    rg: ["--hidden", "-l", "-F", LITERAL],
    git: ["grep", "-I", "-l", "-F", LITERAL],
  },
  {
    what: `literal "${LITERAL}", content`,
    args: { pattern: LITERAL, output_mode: "content" },
    rg: ["--hidden", "-n", "-F", LITERAL],
    git: ["grep", "-I", "-n", "-F", LITERAL],
  },
  {
    what: `regex /${REGEX}/, files_with_matches`,
    args: { pattern: REGEX },
    rg: ["--hidden", "-l", REGEX],
    git: ["grep", "-I", "-l", "-P", REGEX],
  },
  {
    what: `regex /${REGEX}/, content`,
    args: { pattern: REGEX, output_mode: "content" },
    rg: ["--hidden", "-n", REGEX],
    git: ["grep", "-I", "-n", "-P", REGEX],
  },
  {
    what: `regex /${REGEX_NO_LITERAL}/ (no literal to prefilter), content`,
    args: { pattern: REGEX_NO_LITERAL, output_mode: "content" },
    rg: ["--hidden", "-n", REGEX_NO_LITERAL],
    git: ["grep", "-I", "-n", "-P", REGEX_NO_LITERAL],
  },
];
for (const c of grepCases) {
  const contenders = [ours("grep", c.args)];
  if (rg.cmd) contenders.push(command("rg", rg.cmd, c.rg));
  if (gitOk) contenders.push(command("git grep", "git", c.git));
  const [mine, ...theirs] = await race(contenders);
  if (rg.cmd) report(c.what, mine!, "rg", theirs.shift()!, { text: "≤ 2× rg", factor: 2 });
  else skipped(`${c.what} vs rg`, rg.why ?? "rg is missing");
  if (gitOk) report(c.what, mine!, "git grep", theirs.shift()!);
  else skipped(`${c.what} vs git grep`, "git is missing or the tree is not a git repository");
}

// ---- glob ------------------------------------------------------------------------------------

heading(
  `glob vs find and fd (${stats.files} files, median of ${RUNS} interleaved runs; result counts in parentheses)`,
);
const notGit = ["-path", "./.git", "-prune", "-o"];
const globCases: {
  what: string;
  args: Record<string, unknown>;
  find: string[];
  fd: string[];
  wholeTree: boolean;
  /** For a whole-tree pattern: the names it keeps, for the bare walk (the floor). */
  keep?: (name: string) => boolean;
}[] = [
  {
    what: `"**/*.ts" over the whole tree`,
    args: { pattern: "**/*.ts" },
    find: [".", ...notGit, "-type", "f", "-name", "*.ts"],
    fd: ["--type", "f", "--hidden", "--no-ignore-parent", "--exclude", ".git", "--glob", "*.ts"],
    wholeTree: true,
    keep: (name) => name.endsWith(".ts"),
  },
  {
    what: `"**/*" over the whole tree`,
    args: { pattern: "**/*" },
    find: [".", ...notGit, "-type", "f"],
    fd: ["--type", "f", "--hidden", "--no-ignore-parent", "--exclude", ".git"],
    wholeTree: true,
    keep: () => true,
  },
  {
    what: `"**/*.ts" with limit 50 (the newest 50)`,
    args: { pattern: "**/*.ts", limit: 50 },
    find: [".", ...notGit, "-type", "f", "-name", "*.ts"],
    fd: ["--type", "f", "--hidden", "--no-ignore-parent", "--exclude", ".git", "--glob", "*.ts"],
    wholeTree: true,
  },
  {
    what: `"packages/pkg-03/**/*.md" (one package)`,
    args: { pattern: "packages/pkg-03/**/*.md" },
    find: [".", ...notGit, "-type", "f", "-path", "./packages/pkg-03/*", "-name", "*.md"],
    fd: ["--type", "f", "--hidden", "--no-ignore-parent", "--glob", "*.md", "packages/pkg-03"],
    wholeTree: false,
  },
];
const FD_GOAL = { text: "≤ 1.5× fd", factor: 1.5 };
const FIND_GOAL = { text: "faster than find", factor: 1 };

/**
 * The floor under glob in process: the bare walk of bench/lib/bare-walk.mjs on this thread, with
 * the stats and sort, and without them. They walk what find walks (ignored folders too).
 */
function floors(root: string, keep: (name: string) => boolean): Contender[] {
  return [
    { label: "bare walk + stat + sort", once: () => bareWalk(root, keep).length },
    { label: "bare walk alone", once: () => bareWalk(root, keep, false).length },
  ];
}

/**
 * Ours against the floors, and the floors against find: how far the goal lies from what Node
 * costs. The last line divides the floor by the cores: the best any split of that work could do.
 */
function reportFloors(
  what: string,
  mine: { ms: number; results: number },
  find: { ms: number; results: number },
  [withStat, walkOnly]: { ms: number; results: number }[],
): void {
  const cores = os.availableParallelism();
  const findLine = { label: `find (${find.results})`, value: find.ms };
  const floor = { label: `bare walk + stat + sort (${withStat!.results})`, value: withStat!.ms };
  compare({ what, ours: { label: `ours (${mine.results})`, value: mine.ms }, theirs: floor });
  compare({ what: `${what}, the floor`, ours: floor, theirs: findLine });
  compare({
    what: `${what}, the floor without stats`,
    ours: { label: `bare walk alone (${walkOnly!.results})`, value: walkOnly!.ms },
    theirs: findLine,
  });
  compare({
    what: `${what}, the floor split perfectly over this machine's ${cores} cores`,
    ours: { label: `bare walk + stat + sort ÷ ${cores}`, value: withStat!.ms / cores },
    theirs: findLine,
  });
}

for (const g of globCases) {
  const find = [...g.find, "-print"];
  // What glob does, done with find: every file's modification time, then newest first.
  const findSorted = `find ${g.find.map((a) => `'${a}'`).join(" ")} -printf '%T@ %p\\n' | sort -k1,1nr -k2`;
  const contenders = [
    firstWalk("glob", g.args),
    ours("glob", g.args),
    command("find", "find", find),
    command("find -printf %T@ | sort", "sh", ["-c", findSorted]),
  ];
  const bare = g.keep ? floors(tree, g.keep) : [];
  contenders.push(...bare);
  if (fd.cmd) contenders.push(command("fd", fd.cmd, g.fd));
  const [first, mine, plain, sorted, ...rest] = await race(contenders);
  const floorRuns = rest.splice(0, bare.length);
  const fdRun = rest[0];
  report(`${g.what}, again (folder listings kept)`, mine!, "find", plain!, FIND_GOAL);
  report(`${g.what}, first walk of the tree`, first!, "find", plain!, FIND_GOAL);
  report(g.what, mine!, "find -printf mtime | sort", sorted!);
  if (fdRun) report(g.what, mine!, "fd", fdRun, g.wholeTree ? FD_GOAL : undefined);
  else skipped(`${g.what} vs fd`, fd.why ?? "fd is missing");
  if (floorRuns.length > 0) reportFloors(g.what, mine!, plain!, floorRuns);
}

// ---- the hidden-path check -------------------------------------------------------------------

// The file tools leave out what sandbox.denyRead hides (and $LATHE_HOME's private data). When
// nothing hidden lies below the searched folder (the tree here, with the default list), a walk
// checks nothing; when something does (the home folder opened as the workspace), it checks every
// entry. The second engine hides a folder inside the tree, so its walks take the checking path.
heading(
  `glob and grep with a hidden folder inside the tree (every entry checked) vs none (median of ${RUNS} interleaved runs)`,
);
const hidingHome = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-hiding-"));
writeFileSync(
  path.join(hidingHome, "settings.json"),
  JSON.stringify({ sandbox: { denyRead: ["~/.ssh", path.join(tree, "packages/pkg-07/src/secrets")] } }),
);
const hidingEngine = await Engine.create({ root: tree, latheHome: hidingHome, extensions: false });
const hidingSession = await hidingEngine.openSession();
const HIDDEN_GOAL = { text: "≤ 1.1× without", factor: 1.1 };
for (const [tool, args] of [
  ["glob", { pattern: "**/*" }],
  ["grep", { pattern: LITERAL }],
] as const) {
  const [checking, plain] = await race([ours(tool, args, hidingSession), ours(tool, args)]);
  compare({
    what: `${tool} ${JSON.stringify(args)}`,
    ours: { label: `every entry checked (${checking!.results})`, value: checking!.ms },
    theirs: { label: `nothing hidden below (${plain!.results})`, value: plain!.ms },
    goal: HIDDEN_GOAL.text,
    met: checking!.ms <= HIDDEN_GOAL.factor * plain!.ms,
  });
}
await hidingSession.close();
await hidingEngine.close();
await rm(hidingHome, { recursive: true, force: true });

// ---- glob on a copy of node_modules --------------------------------------------------------

const copy = ensureModulesCopy();
if ("why" in copy) {
  skipped("glob on a copy of node_modules", copy.why);
} else {
  heading(
    `glob "**/*.js" on a copy of node_modules (${copy.files} files; median of ${RUNS} interleaved runs, in process; the whole \`lathe call glob\` process is in startup.bench.ts)`,
  );
  const modulesHome = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-modules-"));
  const modulesEngine = await Engine.create({
    root: MODULES_COPY,
    latheHome: modulesHome,
    extensions: false,
  });
  const modulesSession = await modulesEngine.openSession();
  const findJs = [".", "-type", "f", "-name", "*.js", "-print"];
  const inProcess = [
    firstWalk("glob", { pattern: "**/*.js" }, modulesSession),
    ours("glob", { pattern: "**/*.js" }, modulesSession),
    command("find", "find", findJs, MODULES_COPY),
    ...floors(MODULES_COPY, (name) => name.endsWith(".js")),
  ];
  if (fd.cmd)
    inProcess.push(
      command(
        "fd",
        fd.cmd,
        ["--type", "f", "--hidden", "--no-ignore-parent", "--glob", "*.js"],
        MODULES_COPY,
      ),
    );
  const [first, mine, findRun, withStat, walkOnly, fdRun] = await race(inProcess);
  report("in process, again (folder listings kept)", mine!, "find", findRun!, FIND_GOAL);
  report("in process, first walk of the tree", first!, "find", findRun!, FIND_GOAL);
  reportFloors("in process", mine!, findRun!, [withStat!, walkOnly!]);
  if (fdRun) report("in process", mine!, "fd", fdRun, FD_GOAL);
  else skipped("in process vs fd", fd.why ?? "fd is missing");

  await modulesSession.close();
  await modulesEngine.close();
  await rm(modulesHome, { recursive: true, force: true });
}

console.log(
  "\nNotes: ours runs through the whole engine pipeline (validation, scheduler, envelope, sidecar for truncated results); " +
    "it walks on one thread and stats the matches in batches on a helper thread. " +
    "A process keeps the folder listings of its walks and reads a folder again only when its times changed " +
    "(one lstat per folder instead of a listing): 'again' is every call after a session's first, 'first walk' the first. " +
    "find knows no .gitignore (it lists the ignored files too) and does not stat or sort; ours stats every match to sort newest first, " +
    "which the 'find -printf | sort' line does too. rg, git grep and fd use every core.",
);

await session.close();
await engine.close();
await rm(home, { recursive: true, force: true });
