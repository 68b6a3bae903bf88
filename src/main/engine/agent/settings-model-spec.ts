import path from "node:path";

/** What a `gguf:` path may be besides a relative path: `~`, a URL or another address, a drive. */
const NOT_RELATIVE = /^(?:~(?:[/\\]|$)|[a-z][a-z0-9+.-]*:)/i;

/**
 * A model a settings file names, as the run must read it: `gguf:` with a relative path means
 * the file relative to that settings file's folder (`"gguf:models/q.gguf"` in
 * `<project>/.lathe/settings.json` is `<project>/.lathe/models/q.gguf`), wherever the command
 * runs from; so it becomes `gguf:<absolute path>`. Any other spec is returned as it is.
 */
export function settingsModelSpec(spec: string, settingsFile: string): string {
  const match = /^(\s*gguf:\s*)(.*)$/.exec(spec);
  if (!match) return spec;
  const file = (match[2] ?? "").trim();
  if (file === "" || path.isAbsolute(file) || NOT_RELATIVE.test(file)) return spec;
  return `gguf:${path.resolve(path.dirname(settingsFile), file)}`;
}
