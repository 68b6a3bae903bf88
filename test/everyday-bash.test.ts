import { execSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestWorkspace, type TestWorkspace } from "./support/test-workspace.ts";

// What the commands an agent types every day need, through the whole pipeline, with the OS
// sandbox on and the session in yolo mode (no person to ask): each either runs, or is refused
// with the reason the model reads. A row that starts to be refused, or to run, changes here.

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openTestWorkspace();
  expect(ws.engine.sandboxStatus.active).toBe(true);
  await ws.put("a.txt", "alpha\nbeta\n");
  await ws.put("src/main.js", "console.log('hi');\n");
  await ws.put("build.log", "old\n");
  await ws.put("scripts/check.sh", "echo checked\n");
  await ws.put(
    "package.json",
    JSON.stringify({ name: "p", scripts: { test: "echo tested", build: "echo built" } }),
  );
  await ws.put("Makefile", "all:\n\techo made\n");
  await mkdir(path.join(ws.root, "empty"));
  await writeFile(path.join(ws.root, "script.py"), "print('py')\n");
  // Made outside: the sandbox keeps a command from creating git's configuration.
  execSync("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init", {
    cwd: ws.root,
  });
});
afterAll(async () => {
  await ws.cleanup();
});

const RUNS = "runs";
const NEEDS_PERSON = /needs approval and this host cannot ask anyone/;
const NOT_DECLARED = /may not run "/;

const rows: Array<[command: string, expected: typeof RUNS | RegExp, output?: RegExp]> = [
  ["ls | head", RUNS, /a\.txt/],
  ["ls -la src", RUNS, /main\.js/],
  ["grep -rn beta .", RUNS, /a\.txt:2:beta/],
  ["rg -n beta", RUNS, /a\.txt\n2:beta/],
  ["find . -name '*.js' -not -path './node_modules/*'", RUNS, /\.\/src\/main\.js/],
  ["find . -type f | wc -l", RUNS, /\d+/],
  ["cat a.txt | sort | uniq -c", RUNS, /1 alpha/],
  ["head -n 1 a.txt && tail -n 1 a.txt", RUNS, /^alpha\nbeta\n$/],
  ["git status --short", RUNS],
  ["git log --oneline -5", RUNS, /init/],
  ["git diff --stat HEAD", RUNS],
  ["git log | head -3", RUNS, /^commit /],
  ["npm test", RUNS, /tested/],
  ["npm run build", RUNS, /built/],
  ["make", RUNS, /made/],
  ["python3 script.py", RUNS, /py/],
  ["node src/main.js", RUNS, /hi/],
  ["cd src && ls", RUNS, /main\.js/],
  ["mkdir -p out && echo x > out/x.txt && cat out/x.txt", RUNS, /^x\n$/],
  ['for f in *.txt; do echo "$f"; done', RUNS, /a\.txt/],
  ["find . -name '*.log' -delete && ls", RUNS],
  [
    "git -c user.name=t -c user.email=t@t commit --allow-empty",
    RUNS,
    /Aborting commit due to empty commit message/,
  ],
  // Refused, saying why and what to do instead.
  [
    "bash scripts/check.sh",
    NEEDS_PERSON,
    /runs the script "scripts\/check\.sh", whose contents Lathe cannot see/,
  ],
  ["python3 -c 'print(1)'", NEEDS_PERSON, /runs the code "print\(1\)" given in the command line/],
  ["curl -s http://example.com", NOT_DECLARED, /a person can add \{"cmd": "curl"\}/],
  [
    "find . -delete",
    /refused by the watchdog: recursive-delete: /,
    /Delete specific files or folders instead/,
  ],
  ["less a.txt", /`less` was waiting for someone to type on the terminal/, /cat, head or sed -n/],
];

describe("everyday bash commands, sandboxed, in yolo mode", () => {
  it.each(rows)("%s: %s", async (command, expected, output) => {
    const envelope = await ws.session.call("bash", { command, timeout_ms: 30_000 });
    if (expected === RUNS) {
      expect(envelope.type, JSON.stringify(envelope)).toBe("output");
      if (envelope.type !== "output") return;
      const data = envelope.data as { output: string; exit_code: number };
      if (output) expect(data.output).toMatch(output);
      expect(data.exit_code, data.output).toBe(command.includes("commit --allow-empty") ? 1 : 0);
    } else {
      expect(envelope.type).toBe("error");
      const text = envelope.type === "error" ? envelope.error_text : "";
      expect(text).toMatch(expected);
      if (output) expect(text).toMatch(output);
    }
  });

  it("deleted only the log file with find -delete, and kept the workspace", async () => {
    expect((await ws.tree()).filter((p) => !p.startsWith(".git"))).not.toContain("build.log");
    expect(await ws.text("a.txt")).toBe("alpha\nbeta\n");
  });
});
