// Deferred tools and tool_search, with 200 tools registered: the built-ins, the tools of
// @modelcontextprotocol/server-everything (listed over stdio), and generated plugin tools from
// bench/lib/plugin-catalog.ts to make up the rest. Figures:
//  - tokens of tool definitions the model sees at session start, with deferral vs without
//    (goal at the default 32k context: at least 90% fewer, the locked tools never deferred),
//    where those tokens go (locked tools' descriptions and schemas, tool_search, the deferred
//    tools' names line), the same with the locked tools' definitions as they were before they
//    were shortened (test/fixtures/locked-tool-definitions-before.json), and 128k beside it;
//  - the same measured on the wire: the tools array the OpenAI-compatible provider sends to a
//    loopback server in one agent turn, also counted by the Llama-2 tokenizer;
//  - top-5 retrieval of tool_search (through the real engine pipeline) on 50 natural-language
//    queries, each with the tool it should find (goal: at least 95%), next to the AI SDK's
//    default keyword search over the same deferred tools.
// Run alone with `node bench/tool-search.bench.ts`.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { generateText, isStepCount, jsonSchema, tool, toolSearch, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { defaultAgent } from "../src/main/engine/agent/default-agent.ts";
import { defaultProviderRegistry } from "../src/main/engine/agent/default-providers.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import type { ToolSearchData } from "../src/main/engine/builtin/tool-search.ts";
import { Engine } from "../src/main/engine/engine.ts";
import type { AnyTool, ToolOrigin } from "../src/main/engine/tools/contract.ts";
import {
  DEFAULT_CONTEXT_TOKENS,
  LOCKED_TOOL_IDS,
  toolTokens,
  TOOL_SEARCH_ID,
} from "../src/main/engine/tools/deferral.ts";
import { modelSchema } from "../src/main/engine/tools/model-schema.ts";
import { estimateTextTokens } from "../src/main/engine/tools/token-estimate.ts";
import { ToolExposure } from "../src/main/engine/tools/tool-exposure.ts";
import { ToolRegistry } from "../src/main/engine/tools/tool-registry.ts";
import { startOpenAICompatibleServer } from "../test/fixtures/openai-compatible-server.ts";
import { addParts, definitionParts, emptyParts, totalChars } from "./lib/definition-parts.ts";
import { llamaTokenCounter } from "./lib/llama-tokenizer.ts";
import { pluginCatalog, type CatalogTool } from "./lib/plugin-catalog.ts";
import { compare, heading, median, skipped } from "./lib/report.ts";

const TOTAL_TOOLS = 200;
const here = path.dirname(fileURLToPath(import.meta.url));
const EVERYTHING = path.join(here, "../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

/** 50 queries as a model would write them, and the tool each should find. */
const QUERIES: ReadonlyArray<readonly [string, string]> = [
  ["open a new bug report in a GitHub repo", "github_create_issue"],
  ["merge pull request", "github_merge_pull_request"],
  ["rerun the failed CI jobs on GitHub Actions", "github_rerun_workflow"],
  ["read a file from a github repository without cloning", "github_get_file_contents"],
  ["find tickets in Jira that are in progress", "jira_search_issues"],
  ["move a jira issue to done", "jira_transition_issue"],
  ["post a message in a slack channel", "slack_post_message"],
  ["compress a file with gzip", "gzip-file-as-resource"],
  ["search my email for invoices from last week", "gmail_search_messages"],
  ["send an email with an attachment", "gmail_send_email"],
  ["when is everyone free for a 30 minute meeting", "calendar_find_free_slots"],
  ["schedule a meeting with a video link", "calendar_create_event"],
  ["share a google drive document with a colleague", "drive_share_file"],
  ["append rows to a spreadsheet", "sheets_append_rows"],
  ["query a notion database", "notion_query_database"],
  ["which tables exist in the postgres database", "postgres_list_tables"],
  ["why is my SQL query slow", "postgres_explain_query"],
  ["show the columns and indexes of a table", "postgres_describe_table"],
  ["run an aggregation pipeline on a mongodb collection", "mongo_aggregate"],
  ["see the logs of a docker container", "docker_container_logs"],
  ["free disk space by removing unused docker images", "docker_prune_images"],
  ["kubernetes pod keeps crashing, get its logs", "k8s_get_pod_logs"],
  ["scale the web deployment to 5 replicas", "k8s_scale_deployment"],
  ["restart all pods of a deployment", "k8s_rollout_restart"],
  ["generate a temporary download link for an S3 file", "s3_presign_url"],
  ["list running EC2 servers", "ec2_list_instances"],
  ["invoke a lambda function", "lambda_invoke_function"],
  ["search CloudWatch logs for errors", "cloudwatch_query_logs"],
  ["what would terraform change", "terraform_plan"],
  ["latest unresolved errors in Sentry", "sentry_list_issues"],
  ["acknowledge the pagerduty alert", "pagerduty_acknowledge_incident"],
  ["query prometheus for cpu usage", "prometheus_query"],
  ["when does the TLS certificate of example.com expire", "ssl_certificate_check"],
  ["MX records of a domain", "dns_lookup"],
  ["will it rain this weekend in Berlin", "weather_forecast"],
  ["how do I drive from Lyon to Geneva", "maps_directions"],
  ["coffee shops near me", "maps_search_places"],
  ["convert 250 euros to yen", "currency_convert"],
  ["price of bitcoin", "crypto_price"],
  ["refund a customer's payment", "stripe_refund_payment"],
  ["create a support ticket for a customer", "zendesk_create_ticket"],
  ["make a photo's background transparent", "image_remove_background"],
  ["read the text in a scanned image", "image_ocr"],
  ["transcribe a podcast recording", "audio_transcribe"],
  ["combine several PDFs into one", "pdf_merge"],
  ["translate this paragraph into German", "translate_text"],
  ["what's the latest version of the react npm package", "npm_package_info"],
  ["decode a JWT token", "jwt_decode"],
  ["add two numbers together", "get-sum"],
  ["print the environment variables of the MCP server", "get-env"],
];

interface McpToolSpec {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** The tools server-everything lists over stdio, or why they could not be had. */
async function everythingTools(): Promise<{ tools: McpToolSpec[] } | { error: string }> {
  const client = new Client({ name: "lathe-bench", version: "0" });
  try {
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
    );
    const { tools } = await client.listTools();
    return { tools: tools as McpToolSpec[] };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    await client.close().catch(() => undefined);
  }
}

function stubTool(id: string, description: string, parameters: Record<string, unknown>): AnyTool {
  return {
    id,
    description,
    parameters,
    requires: {},
    readOnly: true,
    gated: false,
    kind: "other",
    timeoutMs: 10_000,
    enabled: true,
    deriveApprovalKey: () => id,
    execute: async () => ({}),
  };
}

/** Lathe's tools as the AI SDK sees them, every one but the built-ins deferred. */
function sdkTools(engine: Engine, deferred: ReadonlySet<string>): ToolSet {
  const tools: ToolSet = {};
  for (const { tool: t } of engine.registry.all()) {
    if (t.id === TOOL_SEARCH_ID) continue;
    tools[t.id] = tool({
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(t.parameters),
      deferLoading: deferred.has(t.id),
      execute: async () => ({}),
    });
  }
  tools.search = toolSearch({ maxResults: 5 });
  return tools;
}

/** The names the AI SDK's default keyword search returns for a query. */
async function sdkSearch(tools: ToolSet, query: string): Promise<string[]> {
  const model = new MockLanguageModelV4({
    doGenerate: {
      content: [{ type: "tool-call", toolCallId: "q", toolName: "search", input: JSON.stringify({ query }) }],
      finishReason: { unified: "tool-calls", raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      },
      warnings: [],
    },
  });
  const result = await generateText({ model, tools, stopWhen: isStepCount(1), prompt: query });
  const output = result.steps[0]?.toolResults[0]?.output as { tools: Array<{ name: string }> } | undefined;
  return (output?.tools ?? []).map((t) => t.name);
}

const base = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-tool-search-"));
try {
  const engine = await Engine.create({ root: base, latheHome: path.join(base, "home") });
  const builtins = engine.registry.all().length;

  const everything = await everythingTools();
  let everythingCount = 0;
  if ("tools" in everything) {
    const origin: ToolOrigin = { layer: "global", kind: "mcp", name: "everything" };
    for (const t of everything.tools) {
      engine.registry.register(stubTool(t.name, t.description ?? "", t.inputSchema), origin);
      everythingCount++;
    }
  } else {
    skipped(
      "server-everything tools",
      `the server did not start (${everything.error}); generated tools fill in`,
    );
  }

  // Generated plugin tools up to 200 in all, always including every query's expected tool.
  const expected = new Set(QUERIES.map(([, id]) => id));
  const catalog = pluginCatalog();
  const needed = TOTAL_TOOLS - engine.registry.all().length;
  const chosen: CatalogTool[] = [
    ...catalog.filter((t) => expected.has(t.id)),
    ...catalog.filter((t) => !expected.has(t.id)),
  ].slice(0, needed);
  // The same tools with one-line descriptions and no TOOL.md, for the token figures only.
  const bare = new ToolRegistry();
  for (const e of engine.registry.all()) bare.register(e.tool, e.origin);
  const bareById = new Map(pluginCatalog({ guides: false }).map((t) => [t.id, t]));
  for (const t of chosen) {
    const origin: ToolOrigin = { layer: "global", kind: "plugin", name: t.id };
    engine.registry.register(stubTool(t.id, t.description, t.parameters), origin);
    const b = bareById.get(t.id)!;
    bare.register(stubTool(b.id, b.description, b.parameters), origin);
  }
  const total = engine.registry.all().length;
  console.log(
    `${total} tools: ${builtins} built-in, ${everythingCount} from server-everything, ${chosen.length} generated plugins`,
  );

  /** What the model sees first with and without deferral, and where those tokens go. */
  const sessionStart = (registry: ToolRegistry, contextTokens: number) => {
    const exposure = new ToolExposure(registry, { contextTokens });
    const without = registry
      .all()
      .filter((e) => e.tool.id !== TOOL_SEARCH_ID)
      .reduce((sum, e) => sum + toolTokens(e.tool), 0);
    const initial = exposure.initialToolIds().map((id) => registry.get(id)!.tool);
    const notice = estimateTextTokens(exposure.deferredNotice() ?? "");
    const locked = emptyParts();
    let search = 0;
    let others = 0;
    for (const t of initial) {
      if (t.id === TOOL_SEARCH_ID) search += toolTokens(t);
      else if (LOCKED_TOOL_IDS.has(t.id))
        addParts(locked, definitionParts(t.id, t.description, modelSchema(t.parameters)));
      else others += toolTokens(t);
    }
    const lockedTokens = initial
      .filter((t) => LOCKED_TOOL_IDS.has(t.id) && t.id !== TOOL_SEARCH_ID)
      .reduce((sum, t) => sum + toolTokens(t), 0);
    // Parts are measured in characters; the rows share the locked tools' tokens in proportion.
    const share = (chars: number) => Math.round((lockedTokens * chars) / totalChars(locked));
    const rows: Array<[string, number]> = [
      ["locked tools (12): descriptions", share(locked.description)],
      ["locked tools: schemas' property descriptions", share(locked.propertyDescriptions)],
      ["locked tools: schemas' enums and defaults", share(locked.enums + locked.defaults)],
      ["locked tools: names and schema structure (types, bounds…)", share(locked.name + locked.structure)],
      ["tool_search's own definition", search],
      ["deferred tools' stubs: the names line", notice],
      ["other tools shown in full", others],
    ];
    const lockedDeferred = [...LOCKED_TOOL_IDS].filter((id) => exposure.deferredIds().includes(id)).length;
    return {
      without,
      with: lockedTokens + search + others + notice,
      rows,
      deferred: exposure.deferredIds().length,
      lockedDeferred,
    };
  };

  heading("Tool definitions at session start (estimated tokens)");
  const average = (r: ToolRegistry) =>
    chosen.reduce((sum, t) => sum + toolTokens(r.get(t.id)!.tool), 0) / chosen.length;
  console.log(
    `a generated plugin tool averages ${average(engine.registry).toFixed(0)} tokens with its TOOL.md, ${average(bare).toFixed(0)} without`,
  );
  // The same 200 tools with the locked tools' definitions as they were before they were
  // shortened (commit d6152f1): the comparison for what shortening them did.
  const before = new ToolRegistry();
  const beforeDefinitions = new Map(
    (
      JSON.parse(
        readFileSync(
          new URL("../test/fixtures/locked-tool-definitions-before.json", import.meta.url),
          "utf8",
        ),
      ) as {
        tools: Array<{ id: string; description: string; parameters: Record<string, unknown> }>;
      }
    ).tools.map((t) => [t.id, t]),
  );
  for (const e of engine.registry.all()) {
    const old = beforeDefinitions.get(e.tool.id);
    before.register(old ? stubTool(old.id, old.description, old.parameters) : e.tool, e.origin);
  }

  for (const contextTokens of [DEFAULT_CONTEXT_TOKENS, 128_000]) {
    const start = sessionStart(engine.registry, contextTokens);
    console.log(
      `\nwhere the tokens go, ${contextTokens}-token context (budget ${Math.floor(contextTokens * 0.1)}), ${start.deferred} of ${total} deferred:`,
    );
    for (const [what, value] of start.rows) console.log(`  ${what.padEnd(58)} ${String(value).padStart(6)}`);
    console.log(`  ${"= what the model sees first".padEnd(58)} ${String(start.with).padStart(6)}`);
    console.log(
      `  ${"without deferral: every definition in full".padEnd(58)} ${String(start.without).padStart(6)}`,
    );
  }
  console.log();
  for (const contextTokens of [DEFAULT_CONTEXT_TOKENS, 128_000]) {
    for (const [label, registry] of [
      ["locked tools as before (d6152f1)", before],
      ["now", engine.registry],
    ] as const) {
      const r = sessionStart(registry, contextTokens);
      const fewer = 1 - r.with / r.without;
      // The goal is set for the default 32k context; with more context the budget lets more
      // definitions through by design, so 128k is reported beside it without a goal.
      const headline = contextTokens === DEFAULT_CONTEXT_TOKENS;
      compare({
        what: `${label}, ${contextTokens}-token context, ${r.deferred} deferred: ${(fewer * 100).toFixed(1)}% fewer`,
        ours: { label: "with deferral", value: r.with, unit: "tokens" },
        theirs: { label: "without", value: r.without, unit: "tokens" },
        ...(headline
          ? { goal: "≥ 90% fewer, locked tools not deferred", met: fewer >= 0.9 && r.lockedDeferred === 0 }
          : {}),
      });
    }
  }
  for (const contextTokens of [DEFAULT_CONTEXT_TOKENS, 128_000]) {
    const r = sessionStart(bare, contextTokens);
    console.log(
      `plugins with one-line descriptions instead (no TOOL.md), ${contextTokens}-token context: ${r.with} tokens with deferral | ${r.without} without (${(100 * (1 - r.with / r.without)).toFixed(1)}% fewer)`,
    );
  }

  console.log(
    "(with small plugins the locked tools are most of the 32k figure; at 128k the budget shows more plugins in full, by design)",
  );

  heading("What the provider sends (loopback OpenAI-compatible server, one agent turn, 32k context)");
  const wire = async (contextTokens: number) => {
    const fixture = await startOpenAICompatibleServer({ replies: [{ text: "ok" }] });
    try {
      const model = await defaultProviderRegistry().resolve("openai-compatible:bench", {
        providers: { "openai-compatible": { baseURL: fixture.baseURL } },
      });
      await runAgent({
        engine,
        agent: defaultAgent(),
        model,
        prompt: "hello",
        contextTokens,
        persist: false,
      });
      const request = fixture.requests[0]!;
      const system = request.messages.find((m) => m.role === "system")?.content;
      const notice =
        typeof system === "string"
          ? (system.split("\n").find((l) => l.startsWith("Deferred tools")) ?? "")
          : "";
      return { tools: JSON.stringify(request.tools ?? []), notice, count: request.tools?.length ?? 0 };
    } finally {
      await fixture.close();
    }
  };
  const onWire = await wire(DEFAULT_CONTEXT_TOKENS);
  const allOnWire = await wire(100_000_000);
  const wireWith = estimateTextTokens(onWire.tools) + estimateTextTokens(onWire.notice);
  const wireWithout = estimateTextTokens(allOnWire.tools);
  const estimated = sessionStart(engine.registry, DEFAULT_CONTEXT_TOKENS);
  compare({
    what: `tools array + deferred-names line as sent (${onWire.count} tools in full vs ${allOnWire.count}): ${(100 * (1 - wireWith / wireWithout)).toFixed(1)}% fewer`,
    ours: { label: "with deferral", value: wireWith, unit: "tokens" },
    theirs: { label: "without", value: wireWithout, unit: "tokens" },
    goal: "≥ 90% fewer",
    met: 1 - wireWith / wireWithout >= 0.9,
  });
  console.log(
    `the engine's estimate of the same: ${estimated.with} | ${estimated.without} (the wire adds {"type":"function","function":…} around each tool)`,
  );
  const llama = await llamaTokenCounter();
  if ("missing" in llama) skipped("Llama-2 tokenizer cross-check", llama.missing);
  else {
    const w = llama.count(onWire.tools) + llama.count(onWire.notice);
    const wo = llama.count(allOnWire.tools);
    compare({
      what: `the same counted by the Llama-2 tokenizer: ${(100 * (1 - w / wo)).toFixed(1)}% fewer`,
      ours: { label: "with deferral", value: w, unit: "tokens" },
      theirs: { label: "without", value: wo, unit: "tokens" },
    });
    await llama.dispose();
  }

  heading("tool_search top-5 retrieval, 50 natural-language queries");
  const session = await engine.openSession({ mode: "yolo" });
  const exposure = engine.toolExposure(session, { contextTokens: DEFAULT_CONTEXT_TOKENS });
  const deferred = new Set(exposure.deferredIds());
  const notDeferred = [...expected].filter((id) => !deferred.has(id));
  if (notDeferred.length > 0)
    console.log(`expected tools not deferred (cannot be found): ${notDeferred.join(", ")}`);

  const tools = sdkTools(engine, deferred);
  let ours = 0;
  let oursTop1 = 0;
  let theirs = 0;
  const misses: string[] = [];
  const latencies: number[] = [];
  for (const [query, id] of QUERIES) {
    const t0 = performance.now();
    const envelope = await session.call(TOOL_SEARCH_ID, { query, max_results: 5 });
    latencies.push(performance.now() - t0);
    if (envelope.type !== "output") throw new Error(`tool_search failed: ${envelope.error_text}`);
    const found = (envelope.data as ToolSearchData).tools.map((t) => t.id);
    if (found.includes(id)) ours++;
    else misses.push(`"${query}" → expected ${id}, got [${found.join(", ")}]`);
    if (found[0] === id) oursTop1++;
    if ((await sdkSearch(tools, query)).includes(id)) theirs++;
  }
  const pct = (n: number) => (100 * n) / QUERIES.length;
  compare({
    what: "top-5 retrieval",
    ours: { label: "Lathe tool_search", value: pct(ours), unit: "%" },
    theirs: { label: "AI SDK default keyword search", value: pct(theirs), unit: "%" },
    goal: "≥ 95%",
    met: pct(ours) >= 95,
  });
  console.log(
    `top-1: ${pct(oursTop1).toFixed(0)}%; median tool_search call through the pipeline: ${median(latencies).toFixed(2)} ms`,
  );
  for (const miss of misses) console.log(`  miss: ${miss}`);
  await engine.close();
} finally {
  await rm(base, { recursive: true, force: true });
}
