import type { EntryChecker } from "./entry-check.ts";
import { PluginLoadError } from "./plugin-load-error.ts";
import type { PluginManifest } from "./plugin-manifest.ts";
import type { PluginManifestCache } from "./plugin-manifest-cache.ts";
import type { PluginFile, PluginSource } from "./plugin-source.ts";

/** What the loader finds in a plugin folder: every problem, and the manifest when there is none. */
interface SourceCheck {
  manifest?: PluginManifest;
  problems: PluginLoadError[];
}

function fileProblem(file: PluginFile, what: string, field: string, fix: string): PluginLoadError {
  switch (file.problem) {
    case "too-large":
      return new PluginLoadError(
        file.file,
        field,
        `is ${file.size} bytes, which is more than a plugin's ${what} may be`,
        fix,
      );
    case "outside":
      return new PluginLoadError(
        file.file,
        field,
        "leads outside the plugin folder (a symlink?)",
        "put the real file inside the plugin folder",
      );
    case "unreadable":
      return new PluginLoadError(
        file.file,
        field,
        "cannot be read (not a regular file, or no permission)",
        fix,
      );
    case "unparsable":
      return new PluginLoadError(
        file.file,
        field,
        "could not be parsed at all",
        "write plain YAML: `key: value` lines, no deep nesting",
      );
    default:
      return new PluginLoadError(file.file, field, "is missing", fix);
  }
}

/**
 * Validate a plugin folder as read from disk, without running a line of it: tool.yaml (see
 * checkManifest), TOOL.md's size, and the entry module (syntax, no imports, an `execute`
 * export). Every problem is reported, in file order; the loader refuses the plugin on the
 * first, and `lathe plugin check` prints them all. With a `cache`, a tool.yaml or entry text that
 * passed before is not checked again (the checker, a scratch isolate, is asked for only when an
 * entry needs it), and what passes now is remembered.
 */
export async function checkPluginSource(
  source: PluginSource,
  checker: () => Promise<EntryChecker>,
  cache?: PluginManifestCache,
): Promise<SourceCheck> {
  const problems: PluginLoadError[] = [];
  let manifest: PluginManifest | undefined = source.manifest;
  /** The texts checked now (not taken from the cache). */
  const fresh: { manifest?: string; entry?: string } = {};
  if (manifest !== undefined) {
    // Validated before for exactly this tool.yaml text (see plugin-manifest-cache.ts).
  } else if (source.yamlDoc === undefined) {
    problems.push(
      fileProblem(
        source.yaml,
        "tool.yaml",
        "the file",
        "add tool.yaml with name, version, description and input_schema (see docs/plugins.md)",
      ),
    );
  } else {
    const { checkManifest } = await import("./plugin-manifest.ts");
    const checked = checkManifest(source.yaml.file, source.yamlDoc);
    problems.push(...checked.problems);
    manifest = checked.manifest;
    if (manifest && source.yaml.text !== undefined) fresh.manifest = source.yaml.text;
  }
  if (source.toolMd.problem !== undefined && source.toolMd.problem !== "missing") {
    problems.push(
      fileProblem(
        source.toolMd,
        "TOOL.md",
        "the file",
        "keep TOOL.md to when to use the tool, when not, and a few examples",
      ),
    );
  }
  if (source.entry.text === undefined) {
    problems.push(
      fileProblem(
        source.entry,
        "entry",
        'the entry file (field "entry" of tool.yaml)',
        `add ${source.entryName} exporting \`async function execute(args, runtime)\`, or point "entry" at the file that does`,
      ),
    );
  } else if (cache?.entryChecked(source.entry.text) !== true) {
    const found = await (await checker()).problems(source.entry.file, source.entry.text);
    problems.push(...found);
    fresh.entry = source.entry.text;
  }
  if (problems.length === 0 && manifest) {
    // Only a plugin that passed as a whole is remembered: a broken one is checked afresh each time.
    if (fresh.manifest !== undefined) cache?.rememberManifest(fresh.manifest, manifest);
    if (fresh.entry !== undefined) cache?.rememberEntryChecked(fresh.entry);
  }
  return problems.length === 0 && manifest ? { manifest, problems } : { problems };
}
