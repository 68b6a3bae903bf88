import { parseJsonText } from "./json-text.ts";
import { readSettingsBytes } from "./settings-bytes.ts";
import { z } from "zod";
import { ConfigError } from "../errors/config-error.ts";
import { KEY_VARIABLES } from "./key-variables.ts";
import {
  EnvVariableName,
  HostPatternSchema,
  SandboxPath,
  SandboxSettingsSchema,
} from "../sandbox/sandbox-settings.ts";
import { ShellRunRequirementSchema } from "../tools/requirement-set.ts";
import { PermissionRuleSchema } from "../policy/permission-rule.ts";
import { settingsIssueLines } from "./settings-issues.ts";
import { shellCommandProblem } from "./settings-shell-command.ts";
import { privateHostProblem } from "./settings-private-host.ts";

/**
 * An http:// or https:// URL. `z.url()` alone takes "localhost:11434/v1" (a URL whose scheme is
 * "localhost:"), which then fails only when used, as a bare "fetch failed".
 */
function httpUrl(example: string) {
  return z.url({
    protocol: /^https?$/,
    error: `use a full http:// or https:// URL, e.g. "${example}"`,
  });
}

const HookSchema = z.lazy(() =>
  z.strictObject({
    command: z
      .string()
      .min(1)
      .describe("A shell command; it receives the call as JSON on stdin and answers with JSON."),
    tools: z
      .array(z.string().min(1))
      .optional()
      .describe("Tool ids the hook applies to; all tools when absent."),
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
  }),
);
export type Hook = z.infer<typeof HookSchema>;

const ApprovalModeSchema = z.lazy(() => z.enum(["ask", "allowlist", "yolo"]));
export type ApprovalMode = z.infer<typeof ApprovalModeSchema>;

const McpStdioServerSchema = z.lazy(() =>
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    defer: z
      .boolean()
      .optional()
      .describe("Keep every tool of this server out of the model's initial context."),
    deferTools: z
      .array(z.string())
      .default([])
      .describe("Tools of this server to keep out of the initial context."),
    disabled: z.boolean().default(false),
    allowNetwork: z
      .array(HostPatternSchema)
      .optional()
      .describe(
        'Hosts this server may reach from inside the OS sandbox, besides "sandbox.allowNetwork" (e.g. ["api.github.com"]).',
      ),
    allowRead: z
      .array(SandboxPath)
      .optional()
      .describe(
        'Paths this server may read although "sandbox.denyRead" hides them from confined processes (e.g. ["~/.config/gh"] for a server that reads its token there).',
      ),
    allowEnv: z
      .array(EnvVariableName)
      .optional()
      .describe(
        'Variables of Lathe\'s environment this server receives although "sandbox.denyEnv" withholds them, or a server starts without them (e.g. ["GH_TOKEN"]). A value set in "env" reaches it anyway.',
      ),
  }),
);
const McpHttpServerSchema = z.lazy(() =>
  z.strictObject({
    url: httpUrl("http://127.0.0.1:3000/mcp"),
    headers: z.record(z.string(), z.string()).default({}),
    defer: z.boolean().optional(),
    deferTools: z.array(z.string()).default([]),
    disabled: z.boolean().default(false),
  }),
);
/** One MCP server, in the shape Claude Desktop and Cursor use: stdio (`command`) or Streamable HTTP (`url`). */
export const McpServerSchema = z.lazy(() => z.union([McpStdioServerSchema, McpHttpServerSchema]));
export type McpServerConfig = z.infer<typeof McpServerSchema>;

/**
 * How long a model call may stay silent before the step fails: until the first output of the
 * answer (`firstByteMs`: the server reading the prompt, a model loading), and between two pieces
 * of it (`idleMs`). Keep-alive comments do not count as output.
 */
const ModelTimeoutsSchema = z.lazy(() =>
  z.strictObject({
    firstByteMs: z
      .number()
      .int()
      .min(100)
      .max(3_600_000)
      .optional()
      .describe(
        "Milliseconds to wait for the first output of each model answer (default 120000; 600000 for gguf:).",
      ),
    idleMs: z
      .number()
      .int()
      .min(100)
      .max(3_600_000)
      .optional()
      .describe("Milliseconds of silence allowed in the middle of an answer (default 60000)."),
  }),
);
export type ModelTimeoutsSettings = z.infer<typeof ModelTimeoutsSchema>;

/** The context window of the endpoint's models, when the server does not say or says wrong. */
const ContextTokensSchema = z.lazy(() =>
  z
    .number()
    .int()
    .min(256)
    .max(100_000_000)
    .describe(
      "The context window of its models, in tokens (the server's own setting, e.g. Ollama's num_ctx); it wins over what a run learns from the server. Lathe summarises the older conversation before a request would pass 80% of it, and sizes how many tool definitions the model is shown.",
    ),
);

/** Which of an endpoint's models take images: all (true), none (false), or those matching a glob. */
const ModelImagesSchema = z.lazy(() =>
  z
    .union([z.boolean(), z.array(z.string().min(1)).max(200)])
    .describe(
      'Whether its models accept images (MCP tool images are passed to them): true, false, or model name globs such as ["llava*", "*-vl*"].',
    ),
);

const ProviderEndpointSchema = z.lazy(() =>
  z.strictObject({
    baseURL: httpUrl("http://127.0.0.1:11434/v1")
      .optional()
      .describe(
        'The endpoint\'s OpenAI-compatible base URL, ending in /v1 (e.g. "http://127.0.0.1:11434/v1").',
      ),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "use the name of an environment variable, e.g. MY_API_KEY")
      .optional()
      .describe("The environment variable that holds the API key. Keys never go in this file."),
    timeouts: ModelTimeoutsSchema.optional(),
    images: ModelImagesSchema.optional(),
    contextTokens: ContextTokensSchema.optional(),
  }),
);

/** The embedded GGUF runner has no endpoint to move or key to read: only its timeouts. */
const GgufEndpointSchema = z.lazy(() =>
  z.strictObject({
    timeouts: ModelTimeoutsSchema.optional(),
  }),
);

export type ProviderEndpoint = z.infer<typeof ProviderEndpointSchema> & z.infer<typeof GgufEndpointSchema>;

/** Model providers by name (`PROVIDER:MODEL`); each may move its endpoint or name its key's variable. */
const ProvidersSchema = z.lazy(() =>
  z.strictObject({
    gguf: GgufEndpointSchema.optional(),
    ollama: ProviderEndpointSchema.optional(),
    lmstudio: ProviderEndpointSchema.optional(),
    llamacpp: ProviderEndpointSchema.optional(),
    vllm: ProviderEndpointSchema.optional(),
    "openai-compatible": ProviderEndpointSchema.optional(),
    anthropic: ProviderEndpointSchema.optional(),
    openai: ProviderEndpointSchema.optional(),
  }),
);
export type ProvidersSettings = z.infer<typeof ProvidersSchema>;

/**
 * `settings.json` in `$LATHE_HOME` (user) and `<root>/.lathe/` (project). Unknown keys are refused.
 * Each field's schema is built when a file first has that field (z.lazy inside its default or
 * optional, which answer a missing field without it): a settings file that names a provider
 * builds that section, not the web, MCP, shell and permission schemas too, at every start.
 */
export const SettingsSchema = z.lazy(() =>
  z.strictObject({
    $schema: z.string().optional(),
    permissions: z.lazy(() => z.array(PermissionRuleSchema)).default([]),
    hooks: z.lazy(() => z.array(HookSchema)).default([]),
    approvals: z
      .lazy(() =>
        z.strictObject({
          mode: ApprovalModeSchema.optional(),
          allowlist: z.array(z.string().min(1)).default([]),
          cacheInProject: z.boolean().default(false),
        }),
      )
      .default({ allowlist: [], cacheInProject: false }),
    web: z
      .lazy(() =>
        z.strictObject({
          fetch: z
            .strictObject({
              allowPrivateHosts: z
                .array(z.string().min(1))
                .superRefine((entries, ctx) => {
                  entries.forEach((entry, index) => {
                    const problem = privateHostProblem(entry);
                    if (problem !== undefined)
                      ctx.addIssue({ code: "custom", path: [index], message: problem });
                  });
                })
                .default([])
                .describe(
                  'Hosts on loopback or private networks web_fetch may reach, e.g. a local dev server: "host", "host:port", "host:*" (any port, as no port) or "*.domain".',
                ),
              timeoutMs: z.number().int().min(1_000).max(300_000).default(30_000),
              maxBytes: z.number().int().min(1_024).max(100_000_000).default(10_000_000),
            })
            .default({ allowPrivateHosts: [], timeoutMs: 30_000, maxBytes: 10_000_000 }),
          search: z
            .strictObject({
              providers: z
                .array(
                  z.union([
                    z.strictObject({ type: z.literal("searxng"), url: httpUrl("http://127.0.0.1:8888") }),
                    z.strictObject({
                      type: z.literal("brave"),
                      apiKeyEnv: z.string().default(KEY_VARIABLES.brave),
                      url: httpUrl("https://api.search.brave.com/res/v1/web/search").optional(),
                    }),
                  ]),
                )
                .default([]),
              maxCallsPerSession: z.number().int().min(1).max(10_000).default(25),
              timeoutMs: z.number().int().min(1_000).max(120_000).default(15_000),
            })
            .default({ providers: [], maxCallsPerSession: 25, timeoutMs: 15_000 }),
        }),
      )
      .default({
        fetch: { allowPrivateHosts: [], timeoutMs: 30_000, maxBytes: 10_000_000 },
        search: { providers: [], maxCallsPerSession: 25, timeoutMs: 15_000 },
      }),
    mcpServers: z
      .lazy(() =>
        z.record(
          z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "use letters, digits, _ or - (at most 64)"),
          McpServerSchema,
        ),
      )
      .default({}),
    shell: z
      .lazy(() =>
        z.array(ShellRunRequirementSchema).superRefine((entries, ctx) => {
          entries.forEach((entry, index) => {
            const problem = shellCommandProblem(entry.cmd);
            if (problem !== undefined)
              ctx.addIssue({ code: "custom", path: [index, "cmd"], message: problem });
          });
        }),
      )
      .default([])
      .describe("Commands the bash tool may run in addition to its built-in list."),
    disabledPlugins: z
      .lazy(() =>
        z
          .array(
            z
              .string()
              .regex(
                /^(?:(?:bundled|global|project):)?[^\s:/\\]{1,128}$/,
                'use a plugin folder name, optionally with its layer: "word_count" or "bundled:word_count"',
              ),
          )
          .max(1_000),
      )
      .default([])
      .describe(
        'Plugins not to load (user settings only): a folder name disables it in every layer, "LAYER:NAME" in one.',
      ),
    sandbox: SandboxSettingsSchema.optional(),
    providers: ProvidersSchema.default({}).describe(
      "Model endpoints and where their API keys are read from.",
    ),
    defaultModel: z
      .string()
      .regex(/^[a-z][a-z0-9-]*:.+$/, 'use PROVIDER:MODEL, e.g. "ollama:llama3.2"')
      .optional()
      .describe("The model `lathe run` uses when neither --model nor the agent names one."),
  }),
);
export type Settings = z.infer<typeof SettingsSchema>;

/**
 * What a missing settings file means: every default. Written out rather than parsed from `{}`, so
 * a start without settings builds no schema; lathe-settings.test.ts checks it is exactly what the
 * schema makes of `{}`.
 */
export const EMPTY_SETTINGS: Settings = {
  permissions: [],
  hooks: [],
  approvals: { allowlist: [], cacheInProject: false },
  web: {
    fetch: { allowPrivateHosts: [], timeoutMs: 30_000, maxBytes: 10_000_000 },
    search: { providers: [], maxCallsPerSession: 25, timeoutMs: 15_000 },
  },
  mcpServers: {},
  shell: [],
  disabledPlugins: [],
  providers: {},
};

function formatIssues(file: string, error: z.ZodError, json: unknown): string {
  const lines = settingsIssueLines(error.issues, json, SettingsSchema);
  return `${file} is not valid Lathe settings:\n${lines.join("\n")}\nFix these fields (see the README's "Settings" section) and try again.`;
}

/**
 * The settings last read from each file, with the bytes they were read from. One command asks for
 * the same file several times (the policy, the MCP servers, the plugins' `disabledPlugins`), and
 * a person's file may hold thousands of rules: the file is read each time, so a change is seen at
 * once, but parsed and checked again only when its bytes changed.
 */
const lastRead = new Map<string, { bytes: Uint8Array; settings: Settings }>();
/** Files remembered at most (an app that opened many folders has read as many project files). */
const REMEMBERED_FILES = 32;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/**
 * Read a settings file; a missing file is empty settings, a malformed one a ConfigError. A link
 * to nothing, a folder and every problem of the text (see `parseJsonText`) are malformed. The
 * settings returned may be shared with other callers (as EMPTY_SETTINGS is): never change them.
 */
export function loadSettings(file: string): Settings {
  const read = readSettingsBytes(file);
  if (read.state === "missing") return EMPTY_SETTINGS;
  if (read.state === "problem")
    throw new ConfigError(
      file,
      `${read.problem}.`,
      read.cause === undefined ? undefined : { cause: read.cause },
    );
  const last = lastRead.get(file);
  if (last && sameBytes(last.bytes, read.bytes)) return last.settings;
  lastRead.delete(file);
  const text = parseJsonText(read.bytes);
  if (!text.ok) throw new ConfigError(file, `${file} is not valid JSON: ${text.problem}.`);
  const parsed = SettingsSchema.safeParse(text.json);
  if (!parsed.success) throw new ConfigError(file, formatIssues(file, parsed.error, text.json));
  if (lastRead.size >= REMEMBERED_FILES) lastRead.delete(lastRead.keys().next().value as string);
  lastRead.set(file, { bytes: read.bytes, settings: parsed.data });
  return parsed.data;
}
