import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// How the engine's modules depend on one another, read from their import statements.

const ENGINE = path.resolve(import.meta.dirname, "../src/main/engine");

interface ImportEdge {
  from: string;
  to: string;
  /** Erased when compiled (`import type`, or only `type` specifiers): no module is loaded. */
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return clause !== undefined && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly);
  }
  const clause = node.importClause;
  if (!clause) return false; // `import "./x.ts"` runs the module
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.every((e) => e.isTypeOnly)
  );
}

/** Every static import and re-export between the engine's (non-test) modules; dynamic imports load lazily and are left out. */
function engineImports(): ImportEdge[] {
  const files = sourceFiles(ENGINE);
  const known = new Set(files);
  return files.flatMap((file) => {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    return source.statements.flatMap((node): ImportEdge[] => {
      if (!ts.isImportDeclaration(node) && !ts.isExportDeclaration(node)) return [];
      const spec = node.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith(".")) return [];
      const to = path.resolve(path.dirname(file), spec.text);
      return known.has(to) ? [{ from: file, to, typeOnly: isTypeOnly(node) }] : [];
    });
  });
}

/** The packages (not `node:` builtins) a module loads when imported, through the modules it loads in turn. */
function packagesLoadedBy(entry: string): string[] {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    for (const node of source.statements) {
      if (!ts.isImportDeclaration(node) && !ts.isExportDeclaration(node)) continue;
      const spec = node.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || isTypeOnly(node)) continue;
      if (spec.text.startsWith(".")) stack.push(path.resolve(path.dirname(file), spec.text));
      else if (!spec.text.startsWith("node:")) packages.add(spec.text);
    }
  }
  return [...packages].sort();
}

/** The import circles among `edges`, each as the files in it (Tarjan's strongly connected components). */
function circles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(path.relative(ENGINE, w));
    } while (w !== v);
    if (component.length > 1 || (next.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

const relative = (file: string): string => path.relative(ENGINE, file).split(path.sep).join("/");

describe("the engine's imports", () => {
  const edges = engineImports();

  it("are read from the source (a sanity check on the parser)", () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual({
      from: path.join(ENGINE, "session/session.ts"),
      to: path.join(ENGINE, "tools/call-tool.ts"),
      typeOnly: false,
    });
  });

  // Type-only imports may refer back (a tool's runtime reaches tool definitions through its
  // session's exposure); modules that load each other would see one another half-initialised.
  it("form no circle of modules that load each other", () => {
    expect(circles(edges.filter((e) => !e.typeOnly))).toEqual([]);
  });

  it("finds a circle when there is one (the check can fail)", () => {
    const a = path.join(ENGINE, "a.ts");
    const b = path.join(ENGINE, "b.ts");
    expect(
      circles([
        { from: a, to: b, typeOnly: false },
        { from: b, to: a, typeOnly: false },
      ]),
    ).toEqual([["a.ts", "b.ts"]]);
  });

  it("keep tools/ below the policy and the session: it imports nothing from policy/ or session/", () => {
    const upward = edges
      .filter((e) => relative(e.from).startsWith("tools/") && /^(policy|session)\//.test(relative(e.to)))
      .map((e) => `${relative(e.from)} -> ${relative(e.to)}`);
    expect(upward).toEqual([]);
  });

  // The CLI imports light.ts on every start (its version, checking --model): it must stay cheap.
  it("keep light.ts, the door a host uses while it starts, free of packages", () => {
    expect(packagesLoadedBy(path.join(ENGINE, "light.ts"))).toEqual([]);
    // The check can fail: the engine's main door loads packages.
    expect(packagesLoadedBy(path.join(ENGINE, "index.ts"))).toContain("zod");
  });

  it("keep engine.ts above the tools it assembles: nothing in builtin/, plugins/ or mcp/ imports it", () => {
    const upward = edges
      .filter((e) => /^(builtin|plugins|mcp)\//.test(relative(e.from)) && relative(e.to) === "engine.ts")
      .map((e) => `${relative(e.from)} -> ${relative(e.to)}`);
    expect(upward).toEqual([]);
  });
});
