import { YAMLError } from "yaml";

/**
 * The parser's error when YAML nests deeper than it can read: it ran out of stack (hundreds of
 * levels or more) and says so as RESOURCE_EXHAUSTION where it gave up; what else it reports
 * follows from that. Undefined when none of `errors` is that one.
 */
export function yamlTooDeep(errors: readonly unknown[]): YAMLError | undefined {
  return errors.find(
    (error): error is YAMLError => error instanceof YAMLError && error.code === "RESOURCE_EXHAUSTION",
  );
}

/**
 * Where a YAML error is, as "line 4, column 12", or undefined when the parser did not say.
 * `firstLine` is the line of its file the YAML starts on (a front matter's is the second).
 */
export function yamlErrorPlace(error: YAMLError, firstLine = 1): string | undefined {
  const pos = error.linePos?.[0];
  return pos === undefined ? undefined : `line ${pos.line + firstLine - 1}, column ${pos.col}`;
}

/** What is said of YAML the parser could not read for its depth, and the limit `what` has. */
export function nestedTooDeep(what: string, limit: number): string {
  return `is nested too deep to read (${what} may nest at most ${limit} levels)`;
}
