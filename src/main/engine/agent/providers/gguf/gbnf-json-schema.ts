import type { GbnfJsonSchema } from "node-llama-cpp";

/**
 * A JSON Schema node as node-llama-cpp's grammar builder reads it. Its own type
 * (`GbnfJsonSchema`) is a deeply generic union; the converter builds plain objects and the
 * result is cast once, at the edge.
 */
type GbnfNode = Record<string, unknown>;
type SchemaNode = Record<string, unknown>;

export interface GbnfSchemaLimits {
  /**
   * The longest string the grammar lets the model write where the schema sets no `maxLength`
   * (characters). Every string is bounded: a string the model never closes would otherwise run
   * generation to the token limit and leave unparseable JSON.
   */
  maxStringLength: number;
}

const FORMATS = new Set(["date-time", "time", "date"]);
const MAX_DEPTH = 64;

function isRecord(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function boundedString(node: SchemaNode, limits: GbnfSchemaLimits): GbnfNode {
  const format = node["format"];
  if (typeof format === "string" && FORMATS.has(format)) return { type: "string", format };
  const declared = typeof node["maxLength"] === "number" ? node["maxLength"] : limits.maxStringLength;
  const maxLength = Math.max(0, Math.min(declared, limits.maxStringLength));
  const minLength =
    typeof node["minLength"] === "number" ? Math.min(node["minLength"], maxLength) : undefined;
  return { type: "string", ...(minLength ? { minLength } : {}), maxLength };
}

/** The most values an integer's range may hold and still be listed one by one in the grammar. */
const MAX_LISTED_INTEGERS = 256;

/** The smallest integer the schema's `minimum`/`exclusiveMinimum` allow (both drafts' forms). */
function lowestInteger(node: SchemaNode): number | undefined {
  const bounds: number[] = [];
  const minimum = node["minimum"];
  const exclusive = node["exclusiveMinimum"];
  if (typeof minimum === "number")
    bounds.push(exclusive === true ? Math.floor(minimum) + 1 : Math.ceil(minimum));
  if (typeof exclusive === "number") bounds.push(Math.floor(exclusive) + 1);
  return bounds.length > 0 ? Math.max(...bounds) : undefined;
}

/** The largest integer the schema's `maximum`/`exclusiveMaximum` allow (both drafts' forms). */
function highestInteger(node: SchemaNode): number | undefined {
  const bounds: number[] = [];
  const maximum = node["maximum"];
  const exclusive = node["exclusiveMaximum"];
  if (typeof maximum === "number")
    bounds.push(exclusive === true ? Math.ceil(maximum) - 1 : Math.floor(maximum));
  if (typeof exclusive === "number") bounds.push(Math.ceil(exclusive) - 1);
  return bounds.length > 0 ? Math.min(...bounds) : undefined;
}

/**
 * An integer. node-llama-cpp's grammar has no minimum or maximum, so a small enough range
 * (`max_results` from 1 to 20) is listed value by value (those allowed by `multipleOf` too): the
 * model then cannot write a number the tool refuses. A range too wide for that, or open at one
 * end, stays any integer, and the tool's validation says what is out of range.
 */
function boundedInteger(node: SchemaNode): GbnfNode {
  const low = lowestInteger(node);
  const high = highestInteger(node);
  if (low === undefined || high === undefined || high < low || high - low >= MAX_LISTED_INTEGERS) {
    return { type: "integer" };
  }
  const step = node["multipleOf"];
  const values: number[] = [];
  for (let value = low; value <= high; value++) {
    if (typeof step === "number" && step > 0 && value % step !== 0) continue;
    values.push(value);
  }
  return values.length > 0 ? { enum: values } : { type: "integer" };
}

/** Whether a value of `null` is valid for the schema as written (so it must not be dropped). */
function allowsNull(schema: unknown): boolean {
  if (!isRecord(schema)) return schema === true || schema === undefined;
  const type = schema["type"];
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if ("const" in schema) return schema["const"] === null;
  if (Array.isArray(schema["enum"])) return schema["enum"].includes(null);
  for (const key of ["anyOf", "oneOf"]) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives) && alternatives.some(allowsNull)) return true;
  }
  return false;
}

/** `#`, `#/$defs/NAME` or `#/definitions/NAME` looked up in the root schema. */
function lookUpRef(ref: string, root: unknown): { name: string; schema: unknown } | undefined {
  if (ref === "#") return { name: "root", schema: root };
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match || !isRecord(root)) return undefined;
  const defs = root[match[1] as string];
  if (!isRecord(defs)) return undefined;
  const name = (match[2] as string).replace(/~1/g, "/").replace(/~0/g, "~");
  return name in defs ? { name, schema: defs[name] } : undefined;
}

/**
 * Converts one tool's JSON Schema into the grammar subset node-llama-cpp supports, into a
 * shared set of `$defs` (named with `prefix`, so several tools' definitions never collide).
 */
class SchemaConverter {
  private readonly root: unknown;
  private readonly prefix: string;
  private readonly limits: GbnfSchemaLimits;
  private readonly defs: Map<string, GbnfNode>;

  constructor(root: unknown, prefix: string, limits: GbnfSchemaLimits, defs: Map<string, GbnfNode>) {
    this.root = root;
    this.prefix = prefix;
    this.limits = limits;
    this.defs = defs;
  }

  /** Any JSON value, with its top-level string bounded. */
  private any(): GbnfNode {
    return {
      oneOf: [
        { type: ["number", "boolean", "null"] },
        { type: "string", maxLength: this.limits.maxStringLength },
        { type: "array" },
        { type: "object", additionalProperties: true },
      ],
    };
  }

  private ref(ref: string): GbnfNode {
    const found = lookUpRef(ref, this.root);
    if (!found) return this.any();
    const defName = `${this.prefix}${found.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
    if (!this.defs.has(defName)) {
      this.defs.set(defName, {}); // placeholder: a recursive reference finds the name taken
      this.defs.set(defName, this.convert(found.schema, 0));
    }
    return { $ref: `#/$defs/${defName}` };
  }

  convert(schema: unknown, depth: number): GbnfNode {
    if (!isRecord(schema) || depth > MAX_DEPTH) return schema === false ? { type: "null" } : this.any();
    const next = depth + 1;
    if (typeof schema["$ref"] === "string") return this.ref(schema["$ref"]);
    if ("const" in schema) return isPrimitive(schema["const"]) ? { const: schema["const"] } : this.any();
    if (Array.isArray(schema["enum"])) {
      const values = schema["enum"].filter(isPrimitive);
      return values.length > 0 ? { enum: values } : this.any();
    }
    for (const key of ["anyOf", "oneOf"]) {
      const alternatives = schema[key];
      if (Array.isArray(alternatives) && alternatives.length > 0) {
        const converted = alternatives.map((alternative) => this.convert(alternative, next));
        return converted.length === 1 ? (converted[0] as GbnfNode) : { oneOf: converted };
      }
    }
    if (Array.isArray(schema["allOf"]) && schema["allOf"].length > 0) {
      return this.convert(mergeAllOf(schema), next);
    }
    const type = schema["type"];
    if (Array.isArray(type)) {
      const types = type.filter((t): t is string => typeof t === "string");
      if (types.length === 0) return this.any();
      const converted = types.map((t) => this.typed(schema, t, next));
      return converted.length === 1 ? (converted[0] as GbnfNode) : { oneOf: converted };
    }
    if (typeof type === "string") return this.typed(schema, type, next);
    if (isRecord(schema["properties"])) return this.typed(schema, "object", next);
    if (schema["items"] !== undefined || schema["prefixItems"] !== undefined)
      return this.typed(schema, "array", next);
    return this.any();
  }

  private typed(schema: SchemaNode, type: string, depth: number): GbnfNode {
    switch (type) {
      case "string":
        return boundedString(schema, this.limits);
      case "integer":
        return boundedInteger(schema);
      case "number":
      case "boolean":
      case "null":
        return { type };
      case "object":
        return this.object(schema, depth);
      case "array":
        return this.array(schema, depth);
      default:
        return this.any();
    }
  }

  /**
   * Every listed property is written (the grammar cannot leave keys out), so an optional one
   * becomes nullable here and `dropOmittedNulls` removes the nulls from the model's answer.
   */
  private object(schema: SchemaNode, depth: number): GbnfNode {
    const properties = isRecord(schema["properties"]) ? schema["properties"] : {};
    const required = new Set(Array.isArray(schema["required"]) ? schema["required"] : []);
    const converted: Record<string, GbnfNode> = {};
    for (const [name, property] of Object.entries(properties)) {
      const value = this.convert(property, depth);
      converted[name] =
        required.has(name) || allowsNull(property) ? value : { oneOf: [value, { type: "null" }] };
    }
    const node: GbnfNode = { type: "object", properties: converted };
    const additional = schema["additionalProperties"];
    if (Object.keys(converted).length === 0 && additional !== false) {
      // A map: keys are free, values follow `additionalProperties`.
      node["additionalProperties"] = isRecord(additional) ? this.convert(additional, depth) : true;
      if (typeof schema["minProperties"] === "number") node["minProperties"] = schema["minProperties"];
      if (typeof schema["maxProperties"] === "number") node["maxProperties"] = schema["maxProperties"];
    }
    return node;
  }

  private array(schema: SchemaNode, depth: number): GbnfNode {
    const node: GbnfNode = { type: "array" };
    const items = schema["items"];
    const prefixItems = Array.isArray(items) ? items : schema["prefixItems"];
    if (Array.isArray(prefixItems)) {
      node["prefixItems"] = prefixItems.map((item) => this.convert(item, depth));
      const rest = Array.isArray(items) ? schema["additionalItems"] : items;
      if (isRecord(rest)) node["items"] = this.convert(rest, depth);
    } else if (isRecord(items)) {
      node["items"] = this.convert(items, depth);
    }
    if (typeof schema["minItems"] === "number") node["minItems"] = schema["minItems"];
    if (typeof schema["maxItems"] === "number") node["maxItems"] = schema["maxItems"];
    return node;
  }
}

/** `allOf` folded into one schema: properties merged, `required` joined. */
function mergeAllOf(schema: SchemaNode): SchemaNode {
  const { allOf, ...rest } = schema;
  const parts = [...(allOf as unknown[]).filter(isRecord), rest];
  const merged: SchemaNode = {};
  const properties: SchemaNode = {};
  const required: unknown[] = [];
  for (const part of parts) {
    Object.assign(merged, part);
    if (isRecord(part["properties"])) Object.assign(properties, part["properties"]);
    if (Array.isArray(part["required"])) required.push(...part["required"]);
  }
  if (Object.keys(properties).length > 0) merged["properties"] = properties;
  if (required.length > 0) merged["required"] = [...new Set(required)];
  return merged;
}

/**
 * A set of JSON Schemas converted together for one grammar: each with its own `$defs` prefix,
 * sharing one `$defs` table that `withDefs` attaches to the grammar's root.
 */
export class GbnfSchemaSet {
  private readonly limits: GbnfSchemaLimits;
  private readonly defs = new Map<string, GbnfNode>();
  private count = 0;

  constructor(limits: GbnfSchemaLimits) {
    this.limits = limits;
  }

  /** A string schema bounded like every other string. */
  string(maxLength = this.limits.maxStringLength): GbnfNode {
    return boundedString({ maxLength }, this.limits);
  }

  add(schema: unknown): GbnfNode {
    const converter = new SchemaConverter(schema, `d${this.count++}_`, this.limits, this.defs);
    return converter.convert(schema, 0);
  }

  withDefs(root: GbnfNode): GbnfJsonSchema {
    const schema = this.defs.size > 0 ? { ...root, $defs: Object.fromEntries(this.defs) } : root;
    return schema as unknown as GbnfJsonSchema;
  }
}

function resolve(schema: unknown, root: unknown, depth: number): unknown {
  let current = schema;
  for (
    let hops = 0;
    isRecord(current) && typeof current["$ref"] === "string" && hops < 8 && depth < MAX_DEPTH;
    hops++
  ) {
    current = lookUpRef(current["$ref"], root)?.schema;
  }
  return current;
}

/**
 * Removes the `null` values the grammar made the model write for optional properties the
 * schema does not let be null (see `SchemaConverter.object`), at every depth.
 */
export function dropOmittedNulls(
  value: unknown,
  schema: unknown,
  root: unknown = schema,
  depth = 0,
): unknown {
  const node = resolve(schema, root, depth);
  if (!isRecord(node) || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = node["items"];
    return isRecord(items) ? value.map((item) => dropOmittedNulls(item, items, root, depth + 1)) : value;
  }
  if (!isRecord(value)) return value;
  const properties = isRecord(node["properties"]) ? node["properties"] : {};
  const required = new Set(Array.isArray(node["required"]) ? node["required"] : []);
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (property === undefined) {
      result[key] = item;
    } else if (item === null && !required.has(key) && !allowsNull(resolve(property, root, depth))) {
      continue;
    } else {
      result[key] = dropOmittedNulls(item, property, root, depth + 1);
    }
  }
  return result;
}
