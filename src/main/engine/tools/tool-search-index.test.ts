import { describe, expect, it } from "vitest";
import { searchTerms, stem, words } from "./search-terms.ts";
import { ToolSearchIndex, type SearchableTool } from "./tool-search-index.ts";

function params(props: Record<string, string>): SearchableTool["parameters"] {
  return {
    type: "object",
    properties: Object.fromEntries(
      Object.entries(props).map(([name, description]) => [name, { type: "string", description }]),
    ),
  };
}

const TOOLS: SearchableTool[] = [
  {
    id: "github_create_issue",
    description: "Open a new issue in a GitHub repository with a title, body and labels.",
    parameters: params({ repo: "owner/name", title: "Issue title", body: "Markdown body" }),
  },
  {
    id: "github_list_pull_requests",
    description: "List the open pull requests of a GitHub repository.",
    parameters: params({ repo: "owner/name", state: "open, closed or all" }),
  },
  {
    id: "jira_create_ticket",
    description: "Create a Jira ticket in a project.",
    parameters: params({ project: "Project key", summary: "One-line summary" }),
  },
  {
    id: "slack_post_message",
    description: "Post a message to a Slack channel as the bot user.",
    parameters: params({ channel: "Channel name or id", text: "Message text" }),
  },
  {
    id: "sendEmail",
    description: "Send an email through the configured SMTP server.",
    parameters: params({ to: "Recipient address", subject: "Subject line", body: "Plain text body" }),
  },
  {
    id: "get-weather-forecast",
    description: "Weather forecast for a city for the next days: temperature, rain and wind.",
    parameters: params({ city: "City name", days: "Number of days" }),
  },
  {
    id: "currency_convert",
    description: "Convert an amount between two currencies at today's exchange rate.",
    parameters: params({ amount: "Amount", from: "ISO code, e.g. EUR", to: "ISO code, e.g. USD" }),
  },
  {
    id: "image_resize",
    description: "Scale a picture to a given width and height.",
    parameters: params({ path: "Image file", width: "Pixels", height: "Pixels" }),
  },
  {
    id: "s3_upload_object",
    description: "Store a local file in an S3 bucket under a key.",
    parameters: params({ bucket: "Bucket name", key: "Object key", file: "Local file path" }),
  },
  {
    id: "postgres_query",
    description: "Run a read-only SQL statement against the Postgres database and return the rows.",
    parameters: params({ sql: "The SELECT statement" }),
  },
  {
    id: "k8s_list_pods",
    description: "List the pods in a Kubernetes namespace with their status and restarts.",
    parameters: params({ namespace: "Namespace, default 'default'" }),
  },
  {
    id: "calendar_create_event",
    description: "Schedule a meeting in the user's calendar and invite attendees.",
    parameters: params({ title: "Title", start: "ISO start time", attendees: "Emails to invite" }),
  },
  {
    id: "translate_text",
    description: "Translate text into another language.",
    parameters: params({ text: "Text", target_language: "Target language code" }),
  },
  {
    id: "pdf_extract_text",
    description: "Extract the plain text of every page of a PDF document.",
    parameters: params({ path: "PDF file" }),
  },
  {
    id: "stripe_refund_payment",
    description: "Refund a Stripe charge, fully or partly.",
    parameters: params({ charge_id: "The charge to refund", amount_cents: "Part to refund, in cents" }),
  },
];

const index = new ToolSearchIndex(TOOLS);

describe("search terms", () => {
  it.each([
    ["getUserInfo", ["get", "user", "info"]],
    ["get_user_info", ["get", "user", "info"]],
    ["get-user-info", ["get", "user", "info"]],
    ["HTTPServerError", ["http", "server", "error"]],
    ["s3_upload.v2", ["s3", "upload", "v2"]],
  ])("splits %s into words", (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it.each([
    ["issues", "issue"],
    ["creating", "create"],
    ["created", "create"],
    ["repositories", "repository"],
    ["searches", "search"],
    ["running", "run"],
    ["copied", "copy"],
    ["adds", "add"],
  ])("stems %s like %s", (word, base) => {
    expect(stem(word)).toBe(stem(base));
  });

  it.each([
    ["status", "status"],
    ["string", "string"],
    ["pulled", "pull"],
    ["k8s", "k8s"],
  ])("leaves %s recognisable as %s", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it("splits a huge run of capitals as fast as any text (a hostile MCP server's description)", () => {
    // A backtracking split took minutes on this, freezing the engine; the test's timeout is the guard.
    const blob = "D".repeat(256 * 1024);
    expect(words(`${blob}Parser`)).toEqual([`${blob.toLowerCase()}`, "parser"]);
    const index = new ToolSearchIndex([{ id: "huge", description: blob, parameters: params({}) }]);
    expect(index.search("huge").map((h) => h.id)).toEqual(["huge"]);
  });

  it("drops filler words", () => {
    expect(searchTerms("How do I send an email to the team?")).toEqual(["send", "email", "team"]);
  });
});

describe("ToolSearchIndex ranking", () => {
  it.each([
    // Exact names and substrings of names.
    ["github_create_issue", "github_create_issue"],
    ["GITHUB_CREATE_ISSUE", "github_create_issue"],
    ["create issue", "github_create_issue"],
    ["sendEmail", "sendEmail"],
    ["weather-forecast", "get-weather-forecast"],
    // Substrings of descriptions.
    ["exchange rate", "currency_convert"],
    // Ranked: natural language, other word forms, split identifiers, parameters, synonyms.
    ["open a bug report on github", "github_create_issue"],
    ["which pull requests are open", "github_list_pull_requests"],
    ["send a message to a slack channel", "slack_post_message"],
    ["mail someone", "sendEmail"],
    ["will it rain in Paris tomorrow", "get-weather-forecast"],
    ["convert 100 EUR to USD", "currency_convert"],
    ["make a photo smaller", "image_resize"],
    ["put a file into a bucket", "s3_upload_object"],
    ["select rows from the database", "postgres_query"],
    ["show kubernetes pods", "k8s_list_pods"],
    ["book a meeting with attendees", "calendar_create_event"],
    ["translate into french", "translate_text"],
    ["read the text of a pdf", "pdf_extract_text"],
    ["refund a card payment to a customer", "stripe_refund_payment"],
    ["jira ticket", "jira_create_ticket"],
  ])("%s → %s", (query, expected) => {
    expect(index.search(query, { limit: 1 }).map((h) => h.id)).toEqual([expected]);
  });

  it("puts substring matches first: exact name, then names, then descriptions, then ranked", () => {
    const hits = index.search("github");
    expect(hits.slice(0, 2).map((h) => h.match)).toEqual(["name", "name"]);
    const byDescription = index.search("channel");
    expect(byDescription[0]).toMatchObject({ id: "slack_post_message", match: "description" });
    const ranked = index.search("will it rain");
    expect(ranked[0]).toMatchObject({ id: "get-weather-forecast", match: "ranked" });
  });

  it("finds nothing for a blank query or words no tool has", () => {
    expect(index.search("")).toEqual([]);
    expect(index.search("   \n")).toEqual([]);
    expect(index.search("zxqv blorft")).toEqual([]);
  });

  it("respects limit and among", () => {
    expect(index.search("create", { limit: 2 })).toHaveLength(2);
    expect(index.search("create", { limit: 0 })).toEqual([]);
    const among = index.search("create", { among: ["jira_create_ticket"] });
    expect(among.map((h) => h.id)).toEqual(["jira_create_ticket"]);
  });

  it("finds a server's or plugin's tools by its name, which their own names need not contain", () => {
    const servers = new ToolSearchIndex([
      { id: "tool_1", description: "Does one thing.", parameters: {}, origin: "acmecorp" },
      { id: "tool_2", description: "Does another.", parameters: {}, origin: "acmecorp" },
      { id: "weather_now", description: "Weather for a city.", parameters: {}, origin: "acmecorp" },
      { id: "forecast", description: "Weather for a city.", parameters: {}, origin: "meteo-hub" },
      { id: "unrelated", description: "Something else.", parameters: {} },
    ]);
    expect(
      servers
        .search("acmecorp")
        .map((h) => h.id)
        .sort(),
    ).toEqual(["tool_1", "tool_2", "weather_now"]);
    expect(servers.search("meteo hub").map((h) => h.id)).toEqual(["forecast"]);
    // The origin tells apart two tools that say the same.
    expect(servers.search("acmecorp weather", { limit: 1 }).map((h) => h.id)).toEqual(["weather_now"]);
    expect(servers.search("meteo weather", { limit: 1 }).map((h) => h.id)).toEqual(["forecast"]);
  });

  it("is deterministic for equal scores (by id)", () => {
    const twins = new ToolSearchIndex([
      { id: "b_tool", description: "Same words.", parameters: {} },
      { id: "a_tool", description: "Same words.", parameters: {} },
    ]);
    expect(twins.search("same words").map((h) => h.id)).toEqual(["a_tool", "b_tool"]);
  });
});
