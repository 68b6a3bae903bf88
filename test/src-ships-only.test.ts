import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

// `src/` is exactly what ships: every module in it (tests aside) is loaded by a shipped entry
// point, none of them reaches into test/, and none is a test kit. Test kits and fixtures live
// under test/support/ and test/fixtures/.

const REPO = path.resolve(import.meta.dirname, "..");

/** The shipped entry points (electron.vite.config.ts builds the app, scripts/build-cli.ts the CLI). */
const ENTRIES = [
  "src/main/electron/main.ts",
  "src/main/engine/offload/offload-worker.ts",
  "src/main/engine/spawner/spawner-main.ts",
  "src/preload/index.ts",
  "src/renderer/main.tsx",
  "src/main/cli/main.ts",
  // The launcher loads it before the CLI, to hand quick commands to a running daemon.
  "src/main/cli/daemon/daemon-client.ts",
];

const isTest = (file: string): boolean => /\.test\.tsx?$/.test(file);

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** Every module specifier a file names: static imports, re-exports and `import("…")` with a literal. */
function specifiers(file: string): string[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, kind);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

interface Findings {
  /** Non-test modules no entry point loads (test kits, dead files). */
  unreachable: string[];
  /** Non-test modules importing from outside src/ (e.g. test/support). */
  outsideImports: string[];
  /** Non-test modules importing vitest. */
  vitestImports: string[];
}

/** What in `root`/src is not shipped code, with `entries` relative to `root`. */
function inspect(root: string, entries: readonly string[]): Findings {
  const src = path.join(root, "src");
  const shipped = modules(src).filter((file) => !isTest(file));
  const rel = (file: string): string => path.relative(root, file).split(path.sep).join("/");
  const outsideImports: string[] = [];
  const vitestImports: string[] = [];
  const next = new Map<string, string[]>();
  for (const file of shipped) {
    const targets: string[] = [];
    for (const spec of specifiers(file)) {
      if (spec === "vitest" || spec.startsWith("vitest/") || spec.startsWith("@vitest/"))
        vitestImports.push(`${rel(file)} imports ${spec}`);
      if (!spec.startsWith(".")) continue;
      const target = path.resolve(path.dirname(file), spec);
      if (!target.startsWith(src + path.sep)) outsideImports.push(`${rel(file)} imports ${spec}`);
      targets.push(target);
    }
    next.set(file, targets);
  }
  const reached = new Set<string>();
  const stack = entries.map((entry) => path.join(root, entry));
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (reached.has(file)) continue;
    reached.add(file);
    stack.push(...(next.get(file) ?? []));
  }
  return {
    unreachable: shipped.filter((file) => !reached.has(file)).map(rel),
    outsideImports,
    vitestImports,
  };
}

describe("src/ holds only what ships", () => {
  it("names entry points that the build configurations really build", () => {
    const configs =
      readFileSync(path.join(REPO, "electron.vite.config.ts"), "utf8") +
      readFileSync(path.join(REPO, "scripts/build-cli.ts"), "utf8") +
      readFileSync(path.join(REPO, "src/renderer/index.html"), "utf8");
    for (const entry of ENTRIES) {
      expect(existsSync(path.join(REPO, entry)), entry).toBe(true);
      const named = entry === "src/renderer/main.tsx" ? "./main.tsx" : entry;
      expect(configs, entry).toContain(named);
    }
  });

  it("every non-test module under src/ is loaded by a shipped entry point, none reaches into test/ or imports vitest", () => {
    expect(inspect(REPO, ENTRIES)).toEqual({ unreachable: [], outsideImports: [], vitestImports: [] });
  });

  describe("the check finds what does not belong (a made-up tree)", () => {
    let base = "";
    afterAll(async () => {
      if (base) await rm(base, { recursive: true, force: true });
    });

    it("reports a test kit left in src/, an import from test/ and a vitest import", async () => {
      base = await mkdtemp(path.join(os.tmpdir(), "lathe-src-ships-"));
      await mkdir(path.join(base, "src/lib"), { recursive: true });
      await mkdir(path.join(base, "test/support"), { recursive: true });
      const files: Record<string, string> = {
        "src/main.ts": 'import { used } from "./lib/used.ts";\nexport const x = used;\n',
        "src/lib/used.ts":
          'import { helper } from "../../test/support/helper.ts";\nexport const used = helper;\n',
        "src/lib/kit.ts": 'import { expect } from "vitest";\nexport const kit = expect;\n',
        "src/lib/kit.test.ts": 'import { kit } from "./kit.ts";\nexport const t = kit;\n',
        "test/support/helper.ts": "export const helper = 1;\n",
      };
      for (const [file, text] of Object.entries(files)) await writeFile(path.join(base, file), text);
      expect(inspect(base, ["src/main.ts"])).toEqual({
        unreachable: ["src/lib/kit.ts"],
        outsideImports: ["src/lib/used.ts imports ../../test/support/helper.ts"],
        vitestImports: ["src/lib/kit.ts imports vitest"],
      });
    });
  });
});
