import path from "node:path";

/** What a `gguf:` path may be besides a relative path: `~`, a URL or another address, a drive. */
const NOT_RELATIVE = /^(?:~(?:[/\\]|$)|[a-z][a-z0-9+.-]*:)/i;

/**
 * A model a file names (a settings file's `defaultModel`, an agent manifest's `model`), as the
 * run must read it: `gguf:` with a relative path means the file relative to the folder of the
 * file that names it (`"gguf:models/q.gguf"` in `<project>/.lathe/settings.json` is
 * `<project>/.lathe/models/q.gguf`), wherever the command runs from; so it becomes
 * `gguf:<absolute path>`. Any other spec is returned as it is.
 */
export function fileModelSpec(spec: string, namingFile: string): string {
  const match = /^(\s*gguf:\s*)(.*)$/.exec(spec);
  if (!match) return spec;
  const file = (match[2] ?? "").trim();
  if (file === "" || path.isAbsolute(file) || NOT_RELATIVE.test(file)) return spec;
  return `gguf:${path.resolve(path.dirname(namingFile), file)}`;
}
