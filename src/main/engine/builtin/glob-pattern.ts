import picomatch from "picomatch";
import { ToolCallError } from "../errors/tool-call-error.ts";

/**
 * Check a glob pattern the model gave (glob's `pattern`, grep's `glob`): it must be relative to
 * the searched folder and stay inside it. Returns it without a leading "./".
 */
export function relativeGlob(pattern: string, field: string): string {
  const example = `{"${field}": "**/*.ts", "path": "src"}`;
  if (pattern.startsWith("/") || pattern.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(pattern)) {
    throw new ToolCallError(
      `The ${field} "${pattern}" is an absolute path. Patterns are relative to the searched folder: put the folder in "path" (inside the workspace) and only the glob in "${field}", e.g. ${example}.`,
    );
  }
  if (pattern.split(/[\\/]/).includes("..")) {
    throw new ToolCallError(
      `The ${field} "${pattern}" contains a ".." segment. Patterns cannot climb out of the searched folder: choose the folder with "path" instead, e.g. ${example}.`,
    );
  }
  let relative = pattern;
  while (relative.startsWith("./")) relative = relative.slice(2);
  if (relative === "" || relative === ".") {
    throw new ToolCallError(
      `The ${field} "${pattern}" matches no file. Give a glob such as "**/*" or "*.md".`,
    );
  }
  return relative;
}

/** Characters that make a glob more than a literal. */
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/;

/**
 * A test of relative POSIX paths as a walk yields them (no "." or ".." segment) against a checked
 * glob, with picomatch's meaning (dot files match like any other). The most common whole-tree
 * patterns, "**", "**\/*" and "**\/*.ext", are answered without a regular expression.
 */
export function pathMatcher(glob: string): (relative: string) => boolean {
  if (glob === "**" || glob === "**/*") return () => true;
  const suffix = glob.startsWith("**/*") ? glob.slice(4) : "";
  if (suffix !== "" && !suffix.includes("/") && !GLOB_SYNTAX.test(suffix)) {
    return (relative) => relative.endsWith(suffix);
  }
  return picomatch(glob, { dot: true });
}
