import type { z } from "zod";
import { didYouMean } from "../plugins/did-you-mean.ts";
import { counted } from "../tools/counted.ts";

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** A schema as zod 4 builds it: what `knownKeys` walks to find the keys an object may have. */
interface SchemaNode {
  _zod: { def: Record<string, unknown> & { type: string } };
}

function isSchema(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** The schema itself, through what only wraps it (lazy, default, optional, …). */
function unwrapped(schema: unknown): SchemaNode | undefined {
  if (!isSchema(schema)) return undefined;
  const def = schema._zod.def;
  switch (def.type) {
    case "lazy":
      return unwrapped((def.getter as () => unknown)());
    case "default":
    case "prefault":
    case "optional":
    case "nullable":
    case "readonly":
    case "catch":
    case "nonoptional":
      return unwrapped(def.innerType);
    case "pipe":
      return unwrapped(def.in);
    default:
      return schema;
  }
}

/** The object schemas at `path` below `schema`: several where a union offers several shapes. */
function objectsAt(node: unknown, path: Path): Array<Record<string, unknown>> {
  const schema = unwrapped(node);
  if (!schema) return [];
  const def = schema._zod.def;
  switch (def.type) {
    case "union":
      return (def.options as unknown[]).flatMap((option) => objectsAt(option, path));
    case "array":
      return path.length === 0 ? [] : objectsAt(def.element, path.slice(1));
    case "record":
      return path.length === 0 ? [] : objectsAt(def.valueType, path.slice(1));
    case "object": {
      const shape = def.shape as Record<string, unknown>;
      if (path.length === 0) return [shape];
      return objectsAt(shape[String(path[0])], path.slice(1));
    }
    default:
      return [];
  }
}

/** The option of the union at `path` below `schema` that a union issue's branch `index` is. */
function unionOption(schema: unknown, path: Path, index: number): unknown {
  let node = unwrapped(schema);
  for (const key of path) {
    const def = node?._zod.def;
    if (def?.type === "object") node = unwrapped((def.shape as Record<string, unknown>)[String(key)]);
    else if (def?.type === "array") node = unwrapped(def.element);
    else if (def?.type === "record") node = unwrapped(def.valueType);
    else return undefined;
  }
  const def = node?._zod.def;
  return def?.type === "union" ? (def.options as unknown[])[index] : undefined;
}

function knownKeys(schema: unknown, path: Path): string[] {
  return [...new Set(objectsAt(schema, path).flatMap((shape) => Object.keys(shape)))];
}

function valueAt(input: unknown, path: Path): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/**
 * How well a union's branch fits what was written: a branch that names a different literal (a
 * `type` it is not) fits least; then the one that recognises more of the written keys; then the
 * one with fewer problems.
 */
function fit(branch: readonly Issue[], input: unknown): [number, number, number] {
  const wrongLiteral = branch.filter((i) => i.code === "invalid_value" && i.path.length === 1).length;
  const written = typeof input === "object" && input !== null ? Object.keys(input).length : 0;
  const unknown = branch
    .filter((i) => i.code === "unrecognized_keys" && i.path.length === 0)
    .reduce((n, i) => n + (i.code === "unrecognized_keys" ? i.keys.length : 0), 0);
  return [-wrongLiteral, written - unknown, -branch.length];
}

function better(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as number) > (b[i] as number);
  return false;
}

function where(path: Path): string {
  return path.length > 0 ? path.map(String).join(".") : "(top level)";
}

/** A type as a settings file's reader knows it: zod's "record" is a JSON object of named entries. */
function typeName(expected: string): string {
  return expected === "record" ? "an object of named entries" : expected;
}

/** What a length or a count must be, said as a rule ("must not be empty"), or undefined for others. */
function sizeRule(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string | undefined {
  const noun = issue.origin === "string" ? "character" : issue.origin === "array" ? "item" : undefined;
  if (noun === undefined) return undefined;
  if (issue.code === "too_small") {
    const least = Number(issue.minimum) + (issue.inclusive === false ? 1 : 0);
    return least === 1 ? "must not be empty" : `must have at least ${counted(least, noun)}`;
  }
  const most = Number(issue.maximum) - (issue.inclusive === false ? 1 : 0);
  return `must have at most ${counted(most, noun)}`;
}

function withoutPrefix(message: string): string {
  return message.replace(/^Invalid (input|option): /, "");
}

/**
 * One line per problem of a settings file, each naming its field, the value written and what
 * would be valid: an unknown key with the known key it was probably meant to be, a missing field,
 * a value of the wrong type or not among the allowed ones (with the closest one), a bad name of a
 * server; of a union (a stdio or an HTTP MCP server, a search provider) the branch that fits what
 * was written best, or a type list when no branch fits at all.
 */
export function settingsIssueLines(issues: readonly Issue[], input: unknown, schema: unknown): string[] {
  return linesOf(issues, input, schema, []);
}

/** `schema` is the schema at `prefix`, where the paths of `issues` start. */
function linesOf(issues: readonly Issue[], input: unknown, schema: unknown, prefix: Path): string[] {
  return issues.flatMap((issue): string[] => {
    const at = [...prefix, ...issue.path];
    const value = valueAt(input, at);
    switch (issue.code) {
      case "invalid_union": {
        const branches = issue.errors;
        if (branches.length === 0) break;
        // Wrong type for every branch (`images: "yes"`): list the types that would do.
        const expected = branches.map((b) =>
          b.length === 1 && b[0]?.code === "invalid_type" && b[0].path.length === 0
            ? b[0].expected
            : undefined,
        );
        if (expected.every((e) => e !== undefined)) {
          return [`  - ${where(at)}: is ${shown(value)}; expected ${[...new Set(expected)].join(" or ")}`];
        }
        let closest = 0;
        for (let i = 1; i < branches.length; i++)
          if (better(fit(branches[i] as Issue[], value), fit(branches[closest] as Issue[], value)))
            closest = i;
        return linesOf(branches[closest] as Issue[], input, unionOption(schema, issue.path, closest), at);
      }
      case "unrecognized_keys": {
        const known = knownKeys(schema, issue.path);
        return issue.keys.map((key) => {
          const meant = didYouMean(key, known);
          const hint = meant
            ? ` (did you mean "${meant}"?)`
            : known.length > 0
              ? ` (known keys: ${known.join(", ")})`
              : "";
          return `  - ${where([...at, key])}: is not a known setting${hint}`;
        });
      }
      case "invalid_type":
        if (value === undefined)
          return [`  - ${where(at)}: is missing (expected ${typeName(issue.expected)})`];
        return [
          `  - ${where(at)}: is ${shown(value)}; ${withoutPrefix(issue.message).replace(/^expected record\b/, `expected ${typeName("record")}`)}`,
        ];
      case "too_small":
      case "too_big": {
        const size = sizeRule(issue);
        if (size !== undefined) return [`  - ${where(at)}: is ${shown(value)}; ${size}`];
        break;
      }
      case "invalid_value": {
        // A field left out is missing, not "undefined".
        if (value === undefined) return [`  - ${where(at)}: is missing; ${withoutPrefix(issue.message)}`];
        const options = issue.values.filter((v): v is string => typeof v === "string");
        const meant = typeof value === "string" ? didYouMean(value, options) : undefined;
        return [
          `  - ${where(at)}: is ${shown(value)}; ${withoutPrefix(issue.message)}${meant ? ` (did you mean "${meant}"?)` : ""}`,
        ];
      }
      case "invalid_key":
        return [
          `  - ${where(at)}: the name ${shown(at[at.length - 1])} is invalid: ${issue.issues.map((inner) => inner.message).join("; ")}`,
        ];
      default:
        break;
    }
    return [
      `  - ${where(at)}: ${value === undefined ? "" : `is ${shown(value)}; `}${withoutPrefix(issue.message)}`,
    ];
  });
}
