// Many permission rules: the user's settings with 8,000 rules (what years of "always" answers
// collect) against none, for opening an engine and a read, and for a grep over 2,000 files (a
// walk asks the rules about every file it meets). Goal: 8,000 rules cost at most 1.5× of none
// for the grep. Run alone with `node bench/rules.bench.ts`.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Engine } from "../src/main/engine/index.ts";
import { compare, heading, median, sample } from "./lib/report.ts";

const RULES = 8_000;
const FILES = 2_000;
const RUNS = 5;

const base = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-rules-"));
const root = path.join(base, "ws");
for (let d = 0; d < 40; d++) {
  await mkdir(path.join(root, `src/module${d}`), { recursive: true });
  for (let f = 0; f < FILES / 40; f++)
    await writeFile(path.join(root, `src/module${d}/f${f}.ts`), `export const v${f} = ${f};\n`);
}

function manyRules(): unknown[] {
  const kinds = [
    (i: number) => ({ permission: "read", pattern: `src/module${i}/**`, action: "allow" }),
    (i: number) => ({ permission: "fs.read", pattern: `*.secret${i}`, action: "deny" }),
    (i: number) => ({ permission: "bash", pattern: `npm run task${i}:*`, action: "allow" }),
    (i: number) => ({ permission: "*", pattern: `build${i}/**/*.js`, action: "ask" }),
    (i: number) => ({ permission: "web_fetch", pattern: `api${i}.example.com`, action: "allow" }),
  ];
  return Array.from({ length: RULES }, (_, i) => (kinds[i % kinds.length] as (i: number) => unknown)(i));
}

async function home(name: string, permissions: unknown[]): Promise<string> {
  const dir = path.join(base, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "settings.json"), JSON.stringify({ permissions }));
  return dir;
}

async function measure(latheHome: string): Promise<{ open: number; grep: number }> {
  const open = await sample(async () => {
    const engine = await Engine.create({ root, latheHome, extensions: false });
    const session = await engine.openSession({ mode: "ask" });
    await session.call("read", { path: "src/module0/f0.ts" });
    await engine.close();
  }, RUNS);
  const engine = await Engine.create({ root, latheHome, extensions: false });
  const session = await engine.openSession({ mode: "ask" });
  const grep = await sample(() => session.call("grep", { pattern: "export", output_mode: "count" }), RUNS);
  await engine.close();
  return { open: median(open), grep: median(grep) };
}

try {
  const none = await measure(await home("none", []));
  const many = await measure(await home("many", manyRules()));
  heading(`${RULES} permission rules in the user's settings`);
  compare({
    what: "open an engine and read a file",
    ours: { label: `${RULES} rules`, value: many.open },
    theirs: { label: "no rules", value: none.open },
  });
  compare({
    what: `grep over ${FILES} files`,
    ours: { label: `${RULES} rules`, value: many.grep },
    theirs: { label: "no rules", value: none.grep },
    goal: "≤ 1.5×",
    met: many.grep <= none.grep * 1.5,
  });
} finally {
  await rm(base, { recursive: true, force: true });
}
