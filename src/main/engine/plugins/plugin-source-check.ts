import path from "node:path";
import type { EntryChecker } from "./entry-check.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { PluginLoadError } from "./plugin-load-error.ts";
import type { PluginManifest } from "./plugin-manifest.ts";
import type { PluginManifestCache } from "./plugin-manifest-cache.ts";
import type { PluginFile, PluginSource } from "./plugin-source.ts";

/** What the loader finds in a plugin folder: every problem, and the manifest when there is none. */
interface SourceCheck {
  manifest?: PluginManifest;
  problems: PluginLoadError[];
  /** The cache could not keep what passed (said once per cache): a note for the plugin log. */
  cacheNote?: string;
}

/** What to say about one of a plugin's files, by what is wrong with it. */
interface FileFixes {
  /** How the file is named in the problem: "tool.yaml", "TOOL.md", "the entry file …". */
  what: string;
  /** The file is not there. */
  missing: string;
  /** It is larger than `limit` bytes. */
  tooLarge: string;
  limit: number;
}

/** A size as people read it: 262144 → "256 KB", 1048576 → "1 MB". */
function size(bytes: number): string {
  const mb = 1024 * 1024;
  if (bytes >= mb && bytes % mb === 0) return `${bytes / mb} MB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;
}

function fileProblem(file: PluginFile, field: string, fixes: FileFixes): PluginLoadError {
  switch (file.problem) {
    case "too-large":
      return new PluginLoadError(
        file.file,
        field,
        `is ${file.size} bytes, more than the ${size(fixes.limit)} (${fixes.limit} bytes) ${fixes.what} may be`,
        `${fixes.tooLarge} (at most ${size(fixes.limit)})`,
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
        `make ${path.basename(file.file)} a regular file that you can read (check its type and permissions)`,
      );
    case "unparsable":
      return new PluginLoadError(
        file.file,
        field,
        "could not be parsed at all",
        "write plain YAML: `key: value` lines, no deep nesting",
      );
    default:
      return new PluginLoadError(file.file, field, "is missing", fixes.missing);
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
      fileProblem(source.yaml, "the file", {
        what: "a plugin's tool.yaml",
        missing: "add tool.yaml with name, version, description and input_schema (see docs/plugins.md)",
        tooLarge:
          "shorten tool.yaml: keep the description to a sentence or two (the model's guide belongs in TOOL.md) and the schemas to the arguments the tool takes",
        limit: PLUGIN_LIMITS.yamlBytes,
      }),
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
      fileProblem(source.toolMd, "the file", {
        what: "a plugin's TOOL.md",
        missing: "add TOOL.md",
        tooLarge: "shorten TOOL.md to when to use the tool, when not, and a few examples",
        limit: PLUGIN_LIMITS.toolMdBytes,
      }),
    );
  }
  if (source.entry.text === undefined) {
    problems.push(
      fileProblem(source.entry, 'the entry file (field "entry" of tool.yaml)', {
        what: "a plugin's entry file",
        missing: `add ${source.entryName} exporting \`async function execute(args, runtime)\`, or point "entry" at the file that does`,
        tooLarge: `make ${source.entryName} smaller: bundle only what the tool needs, minified`,
        limit: PLUGIN_LIMITS.entryBytes,
      }),
    );
  } else if (cache?.entryChecked(source.entry.text) !== true) {
    const found = await (await checker()).problems(source.entry.file, source.entry.text);
    problems.push(...found);
    fresh.entry = source.entry.text;
  }
  if (problems.length === 0 && manifest) {
    // Only a plugin that passed as a whole is remembered: a broken one is checked afresh each time.
    const notes = [
      fresh.manifest === undefined ? undefined : cache?.rememberManifest(fresh.manifest, manifest),
      fresh.entry === undefined ? undefined : cache?.rememberEntryChecked(fresh.entry),
    ];
    const cacheNote = notes.find((note) => note !== undefined);
    return { manifest, problems, ...(cacheNote !== undefined ? { cacheNote } : {}) };
  }
  return { problems };
}
