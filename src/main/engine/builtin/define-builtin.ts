import { z } from "zod";
import type { JsonSchema, ToolDefinition, ToolKind, ToolRuntime, Truncation } from "../tools/contract.ts";
import type { CallPlan } from "../tools/call-plan.ts";
import type { RequirementSet } from "../tools/requirement-set.ts";
import { stableStringify } from "../tools/stable-stringify.ts";
import { usePrecompiled } from "../tools/argument-validator.ts";
import { BUILTIN_PARAMETERS, BUILTIN_VALIDATORS } from "./builtin-catalog.ts";

interface BuiltinSpec<S extends z.ZodObject, Data> {
  id: string;
  description: string;
  /**
   * The arguments, as a zod object or a function that builds it: the built-ins pass a function, so
   * that no zod schema is built until one is needed (see `parameters` below).
   */
  schema: S | (() => S);
  requires: RequirementSet;
  readOnly: boolean;
  kind: ToolKind;
  gated?: boolean;
  timeoutMs?: number;
  /** How the files a call changes are checkpointed (see ToolDefinition.checkpoints). */
  checkpoints?: "reported" | "scan";
  callTimeoutMs?(args: z.output<S>): number;
  deriveApprovalKey?(args: z.output<S>): string;
  execute(args: z.output<S>, runtime: ToolRuntime): Promise<Data>;
  /** What a call will touch, so the capability check and the rules judge the real targets first. */
  plan?(args: z.output<S>): CallPlan | Promise<CallPlan>;
  truncate?(data: Data): Truncation<Data> | undefined;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/** Publish a zod object as the JSON Schema the model sees and ajv validates. */
function toParameters(schema: z.ZodObject): JsonSchema {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" });
  return json as JsonSchema;
}

/**
 * A built-in tool from a zod schema: the schema is published with `z.toJSONSchema`, the
 * pipeline validates against it before `execute` runs, so `execute` receives typed arguments.
 * The published schema is made on first use — taken from the bundle's catalog when it has it
 * (builtin-catalog.ts, with its precompiled validator), else generated from the zod schema.
 */
export function defineBuiltin<S extends z.ZodObject, Data>(
  spec: BuiltinSpec<S, Data>,
): ToolDefinition<z.output<S>, Data> {
  let parameters: JsonSchema | undefined;
  const publish = (): JsonSchema => {
    const built = BUILTIN_PARAMETERS[spec.id];
    if (built === undefined)
      return toParameters(typeof spec.schema === "function" ? spec.schema() : spec.schema);
    const validate = BUILTIN_VALIDATORS[spec.id];
    if (validate) usePrecompiled(built, validate);
    return built;
  };
  return {
    id: spec.id,
    description: spec.description,
    get parameters() {
      parameters ??= publish();
      return parameters;
    },
    requires: spec.requires,
    readOnly: spec.readOnly,
    gated: spec.gated ?? !spec.readOnly,
    kind: spec.kind,
    timeoutMs: spec.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    enabled: true,
    deriveApprovalKey: spec.deriveApprovalKey ?? ((args) => `${spec.id}:${stableStringify(args)}`),
    execute: spec.execute,
    ...(spec.callTimeoutMs ? { callTimeoutMs: spec.callTimeoutMs } : {}),
    ...(spec.truncate ? { truncate: spec.truncate } : {}),
    ...(spec.plan ? { plan: spec.plan } : {}),
    ...(spec.checkpoints ? { checkpoints: spec.checkpoints } : {}),
  };
}
