import path from "node:path";
import { z } from "zod";
import { ManifestError } from "../errors/manifest-error.ts";
import { AGENT_ID } from "./agent-id.ts";
import { fileModelSpec } from "./file-model-spec.ts";
import { PermissionRuleSchema, type PermissionRule } from "../policy/permission-rule.ts";
import { RequirementSetSchema, type RequirementSet } from "../tools/requirement-set.ts";

/** Where an agent manifest was found; a later layer shadows an earlier one with the same id. */
export type AgentLayer = "builtin" | "global" | "project";

export const DEFAULT_BUDGETS = {
  maxRounds: 50,
  maxToolCalls: 200,
  maxCallsPerTool: {},
  maxOutputTokens: 8192,
} as const;

/** What YAML made of a value that should be a set of keys, as the message names it. */
function shownValue(input: unknown): string {
  if (Array.isArray(input)) return "a list";
  if (input === null) return "empty";
  return typeof input === "string" ? JSON.stringify(input) : String(input);
}

/** Why `maxCallsPerTool` is not tool ids to limits (`maxCallsPerTool: 2`), and the shape to write. */
function notPerTool(issue: { code?: string; input?: unknown }): string | undefined {
  if (issue.code !== "invalid_type") return undefined;
  return `is ${shownValue(issue.input)}; give each tool its own limit by its id, e.g. maxCallsPerTool: { grep: 10 } (one limit for all tool calls together is maxToolCalls)`;
}

const BudgetsSchema = z.strictObject({
  maxRounds: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(DEFAULT_BUDGETS.maxRounds)
    .describe("Model steps per run; the run stops after this many."),
  maxToolCalls: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(DEFAULT_BUDGETS.maxToolCalls)
    .describe("Tool calls per run; calls beyond it are refused with an error the model sees."),
  maxCallsPerTool: z
    .record(z.string().min(1), z.number().int().min(0).max(100_000), { error: notPerTool })
    .default({})
    .describe('Calls per run of one tool, e.g. {"grep": 10}.'),
  maxOutputTokens: z
    .number()
    .int()
    .min(16)
    .max(1_000_000)
    .optional()
    .describe(
      `Tokens the model may write in one step (default ${DEFAULT_BUDGETS.maxOutputTokens}); a model that rambles stops here.`,
    ),
});
export type AgentBudgets = z.infer<typeof BudgetsSchema>;

const ToolPatternSchema = z
  .string()
  .regex(/^[A-Za-z0-9_*?{},!-]+$/, 'use a tool id or a glob over tool ids, e.g. "read" or "web_*"');

/** The front matter of an agent manifest (the markdown body below it is the system prompt). */
const AgentFrontMatterSchema = z.strictObject({
  id: z
    .string()
    .regex(AGENT_ID, 'use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit')
    .optional()
    .describe("The agent's id; defaults to the file name without .md."),
  description: z.string().min(1).describe("One line: what the agent is for."),
  model: z
    .string()
    .regex(/^[a-z][a-z0-9-]*:.+$/, 'use PROVIDER:MODEL, e.g. "ollama:qwen2.5-coder"')
    .optional(),
  tools: z
    .strictObject({
      allow: z.array(ToolPatternSchema).default(["*"]),
      deny: z.array(ToolPatternSchema).default([]),
    })
    .default({ allow: ["*"], deny: [] })
    .describe("Which tools the model sees: allowed and not denied (deny wins)."),
  requires: z._default(RequirementSetSchema, {}),
  permissions: z
    .array(PermissionRuleSchema)
    .default([])
    .describe("Rules only this agent's runs obey; its deny rules cannot be lifted."),
  budgets: BudgetsSchema.default({ ...DEFAULT_BUDGETS, maxCallsPerTool: {} }),
});

export interface AgentManifest {
  id: string;
  description: string;
  /** As written, except a relative `gguf:` path, made absolute against the manifest's folder. */
  model: string | undefined;
  /** The markdown body. */
  systemPrompt: string;
  tools: { allow: string[]; deny: string[] };
  requires: RequirementSet;
  permissions: PermissionRule[];
  budgets: AgentBudgets;
  layer: AgentLayer;
  /** The file it was read from, or "built-in". */
  source: string;
}

function formatIssues(file: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(front matter)";
    return `  - ${where}: ${issue.message}`;
  });
  return `${file} is not a valid agent manifest:\n${lines.join("\n")}\nFix these fields in the front matter (between the two "---" lines) and try again.`;
}

/**
 * An agent from its parsed front matter and its system prompt (the markdown body). Throws
 * ManifestError naming the file, the field and the fix. `parseAgentManifest` reads the file form.
 */
export function agentManifestFrom(
  frontMatter: unknown,
  body: string,
  file: string,
  layer: AgentLayer,
): AgentManifest {
  const parsed = AgentFrontMatterSchema.safeParse(frontMatter ?? {});
  if (!parsed.success) throw new ManifestError(formatIssues(file, parsed.error));
  const systemPrompt = body.trim();
  if (systemPrompt === "") {
    throw new ManifestError(
      `${file} has no system prompt: write the agent's instructions below the front matter.`,
    );
  }
  const front = parsed.data;
  const id = front.id ?? path.basename(file, ".md");
  if (!AGENT_ID.test(id)) {
    throw new ManifestError(
      `${file}: the agent id "${id}" (from the file name) is invalid: add an "id:" with 1-64 letters, digits, ".", "_" or "-".`,
    );
  }
  return {
    id,
    description: front.description,
    model: front.model === undefined || layer === "builtin" ? front.model : fileModelSpec(front.model, file),
    systemPrompt,
    tools: front.tools,
    requires: front.requires,
    permissions: front.permissions,
    budgets: front.budgets,
    layer,
    source: file,
  };
}
