import ivm from "isolated-vm";
import { PluginLoadError } from "./plugin-load-error.ts";
import { entryUrl } from "./plugin-source.ts";

const CHECKER_MEMORY_MB = 32;
const POSITION = /^(.*) \[.*:(\d+):(\d+)\]$/s;
const SELF_CONTAINED_FIX =
  "remove the import and inline the code you need: a plugin is one self-contained ES module, and it reaches files, the network and commands only through runtime.fs, runtime.net and runtime.shell declared under requires in tool.yaml";

/**
 * Checks plugin entry files without running a line of them: it parses each as an ES module in a
 * scratch isolate, refuses imports, and links a probe module that imports `execute` from it (a
 * missing export fails linking). One checker serves a whole load; dispose it afterwards.
 */
export class EntryChecker {
  private isolate: ivm.Isolate | undefined;
  private ready: Promise<{ isolate: ivm.Isolate; context: ivm.Context }> | undefined;

  private scratch(): Promise<{ isolate: ivm.Isolate; context: ivm.Context }> {
    if (!this.ready || !this.isolate || this.isolate.isDisposed) {
      const isolate = new ivm.Isolate({ memoryLimit: CHECKER_MEMORY_MB });
      this.isolate = isolate;
      this.ready = isolate.createContext().then((context) => ({ isolate, context }));
    }
    return this.ready;
  }

  /** Throws PluginLoadError for the first problem `problems` finds. */
  async check(file: string, source: string): Promise<void> {
    const [first] = await this.problems(file, source);
    if (first) throw first;
  }

  /**
   * Every problem of an entry file: a syntax error (with its line and column), each import, or
   * a missing `execute` export. None: the module would load.
   */
  async problems(file: string, source: string): Promise<PluginLoadError[]> {
    const { isolate, context } = await this.scratch();
    let module: ivm.Module;
    try {
      module = await isolate.compileModule(source, { filename: entryUrl(file) });
    } catch (err) {
      const message = (err as Error).message;
      const match = POSITION.exec(message);
      const where = match ? `line ${match[2]}, column ${match[3]}` : "the module";
      return [
        new PluginLoadError(
          file,
          where,
          `has a JavaScript syntax error (${(err as Error).name}: ${match ? match[1] : message})`,
          "correct the JavaScript; the entry is an ES module that exports `async function execute(args, runtime)`",
        ),
      ];
    }
    try {
      const imports = module.dependencySpecifiers.map(
        (specifier) =>
          new PluginLoadError(file, `import "${specifier}"`, "is not allowed", SELF_CONTAINED_FIX),
      );
      if (imports.length > 0) return imports;
      const probe = await isolate.compileModule('import { execute } from "plugin";', {
        filename: "lathe:probe",
      });
      try {
        await probe.instantiate(context, () => module);
      } catch {
        return [
          new PluginLoadError(
            file,
            "the export `execute`",
            "is missing",
            "add `export async function execute(args, runtime) { … }` to the entry file",
          ),
        ];
      } finally {
        probe.release();
      }
      return [];
    } finally {
      module.release();
    }
  }

  dispose(): void {
    if (this.isolate && !this.isolate.isDisposed) this.isolate.dispose();
    this.isolate = undefined;
    this.ready = undefined;
  }
}
