import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import type { PermissionRule } from "../src/main/engine/policy/permission-rule.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";

// A deny rule on reading a file keeps it from the model: `read .env` is refused. glob and grep
// find files by themselves; a file such a rule covers must not reach the model through them
// either: not its lines, not that it holds the pattern, not even its name. What they leave out
// they count, without a name, so the model knows why and does not go looking.

const SECRET = "sk-51c0ffee";

let base: string;
let root: string;
let home: string;

/** Every file of the workspace; the secret ones hold SECRET, the others only "TOKEN public". */
const ALL = [
  ".env",
  "certs/server.pem",
  "config/app.json",
  "config/secrets/prod.txt",
  "key.pem",
  "notes.md",
  "src/.env",
  "src/app.ts",
  "src/prod-link.txt",
];
const SECRET_FILES = new Set([".env", "certs/server.pem", "config/secrets/prod.txt", "key.pem", "src/.env"]);

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-search-deny-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(home);
  for (const file of ALL) {
    if (file === "src/prod-link.txt") continue;
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), SECRET_FILES.has(file) ? `TOKEN=${SECRET}\n` : "TOKEN public\n");
  }
  // A symlink from a readable folder to a denied file: what it leads to is the denied file.
  await symlink("../config/secrets/prod.txt", path.join(root, "src/prod-link.txt"));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function call(rules: PermissionRule[], tool: string, args: Record<string, unknown>): Promise<Envelope> {
  await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: rules }));
  const engine = await Engine.create({ root, latheHome: home, extensions: false });
  try {
    const session = await engine.openSession({ mode: "yolo" });
    return await session.call(tool, args);
  } finally {
    await engine.close();
  }
}

/** The paths a search result names, whatever its shape. */
function pathsOf(envelope: Envelope): string[] {
  if (envelope.type !== "output") throw new Error(`expected output, got: ${envelope.error_text}`);
  const data = envelope.data as {
    files?: string[];
    matches?: { path: string }[];
    counts?: { path: string }[];
  };
  const paths = data.files ?? [...(data.matches ?? []), ...(data.counts ?? [])].map((m) => m.path);
  return [...new Set(paths)].sort();
}

function noteOf(envelope: Envelope): string | undefined {
  return envelope.type === "output" ? (envelope.data as { note?: string }).note : undefined;
}

const SEARCHES: Array<[string, string, Record<string, unknown>]> = [
  ["glob", "glob", { pattern: "**/*" }],
  ["grep (files)", "grep", { pattern: "TOKEN" }],
  ["grep (content)", "grep", { pattern: "TOKEN", output_mode: "content" }],
  ["grep (count)", "grep", { pattern: "TOKEN", output_mode: "count" }],
];

/** Rule forms, as a function of the search tool (for a rule naming the tool itself), and what each denies. */
const RULE_FORMS: Array<[string, (tool: string) => PermissionRule[], string[]]> = [
  // A pattern without a slash names a file at any depth, as a .gitignore line does.
  ["a file's name", () => [{ permission: "fs.read", pattern: ".env", action: "deny" }], [".env", "src/.env"]],
  [
    "an exact file, anchored with ./",
    () => [{ permission: "fs.read", pattern: "./.env", action: "deny" }],
    [".env"],
  ],
  [
    "a folder/**",
    () => [{ permission: "fs.read", pattern: "config/secrets/**", action: "deny" }],
    ["config/secrets/prod.txt", "src/prod-link.txt"],
  ],
  [
    "a folder named literally",
    () => [{ permission: "fs.read", pattern: "./config/secrets", action: "deny" }],
    ["config/secrets/prod.txt", "src/prod-link.txt"],
  ],
  [
    "a *.ext pattern (any depth)",
    () => [{ permission: "fs.read", pattern: "*.pem", action: "deny" }],
    ["certs/server.pem", "key.pem"],
  ],
  [
    "a ./*.ext pattern (top level)",
    () => [{ permission: "fs.read", pattern: "./*.pem", action: "deny" }],
    ["key.pem"],
  ],
  [
    "a **/*.ext pattern",
    () => [{ permission: "fs.read", pattern: "**/*.pem", action: "deny" }],
    ["certs/server.pem", "key.pem"],
  ],
  [
    "a dotfile anywhere",
    () => [{ permission: "fs.read", pattern: "**/.env", action: "deny" }],
    [".env", "src/.env"],
  ],
  [
    "an absolute pattern",
    () => [{ permission: "fs.read", pattern: `${root}/config/secrets/**`, action: "deny" }],
    ["config/secrets/prod.txt", "src/prod-link.txt"],
  ],
  [
    "the read tool's rule",
    () => [{ permission: "read", pattern: "config/secrets/**", action: "deny" }],
    ["config/secrets/prod.txt", "src/prod-link.txt"],
  ],
  [
    "the search tool's own rule",
    (tool) => [{ permission: tool, pattern: "**/.env", action: "deny" }],
    [".env", "src/.env"],
  ],
  [
    "a * rule",
    () => [{ permission: "*", pattern: "{.env,config/secrets/**}", action: "deny" }],
    [".env", "config/secrets/prod.txt", "src/prod-link.txt"],
  ],
];

describe("glob and grep under read deny rules", () => {
  it.each(SEARCHES)("%s names every file with no rule (control)", async (_name, tool, args) => {
    const envelope = await call([], tool, args);
    expect(pathsOf(envelope)).toEqual(ALL);
    if (tool === "grep" && args.output_mode === "content") expect(JSON.stringify(envelope)).toContain(SECRET);
    expect(noteOf(envelope)).toBeUndefined();
  });

  describe.each(RULE_FORMS)("%s", (_form, rules, denied) => {
    it.each(SEARCHES)(
      "%s leaves the denied files out and counts them, naming none",
      async (_n, tool, args) => {
        const envelope = await call(rules(tool), tool, args);
        expect(pathsOf(envelope)).toEqual(ALL.filter((f) => !denied.includes(f)));
        const text = JSON.stringify(envelope);
        const note = noteOf(envelope) ?? "";
        const n = denied.length;
        expect(note).toContain(
          `left out ${n} ${n === 1 ? "file" : "files"} that your permission rules deny reading`,
        );
        for (const file of denied) {
          expect(note).not.toContain(path.posix.basename(file));
          expect(note).not.toContain(path.posix.dirname(file) === "." ? file : path.posix.dirname(file));
        }
        // The secret lines come only from denied files here (a rule form denying some of them).
        if (denied.includes("config/secrets/prod.txt")) expect(text).not.toMatch(/prod\.txt|prod-link/);
      },
    );
  });

  it("leaves out only the matching denied files: the count is of what the search would have shown", async () => {
    const rules: PermissionRule[] = [{ permission: "fs.read", pattern: "**/*.pem", action: "deny" }];
    const envelope = await call(rules, "glob", { pattern: "certs/*" });
    expect(pathsOf(envelope)).toEqual([]);
    expect(noteOf(envelope)).toMatch(/^left out 1 file that your permission rules deny reading/);
    const none = await call(rules, "glob", { pattern: "**/*.json" });
    expect(pathsOf(none)).toEqual(["config/app.json"]);
    expect(noteOf(none)).toBeUndefined();
  });

  it("keeps rule precedence: a more specific allow still shows a file in a denied folder", async () => {
    const rules: PermissionRule[] = [
      { permission: "fs.read", pattern: "config/**", action: "deny" },
      { permission: "fs.read", pattern: "config/app.json", action: "allow" },
    ];
    for (const [, tool, args] of SEARCHES) {
      const envelope = await call(rules, tool, args);
      expect(pathsOf(envelope)).toContain("config/app.json");
      expect(pathsOf(envelope)).not.toContain("config/secrets/prod.txt");
    }
  });

  const SECRETS_DENIED: PermissionRule[] = [
    { permission: "fs.read", pattern: "config/secrets/**", action: "deny" },
  ];
  const READ_DENIED: PermissionRule[] = [
    { permission: "read", pattern: "config/secrets/**", action: "deny" },
  ];
  const ENV_DENIED: PermissionRule[] = [{ permission: "fs.read", pattern: "**/.env", action: "deny" }];

  it.each<[string, PermissionRule[], string, Record<string, unknown>, RegExp]>([
    [
      "glob in a denied folder",
      SECRETS_DENIED,
      "glob",
      { pattern: "*", path: "config/secrets" },
      /^glob was denied: reading "config\/secrets" matched the user rule/,
    ],
    [
      "grep in a denied folder",
      SECRETS_DENIED,
      "grep",
      { pattern: "TOKEN", path: "config/secrets" },
      /^grep was denied: reading "config\/secrets" matched the user rule/,
    ],
    [
      "grep of a denied file",
      ENV_DENIED,
      "grep",
      { pattern: "TOKEN", path: "src/.env" },
      /^grep was denied: reading "src\/\.env" matched the user rule/,
    ],
    [
      "glob whose pattern enters a denied folder",
      SECRETS_DENIED,
      "glob",
      { pattern: "config/secrets/*" },
      /^glob was denied: reading "config\/secrets" matched the user rule/,
    ],
    [
      "glob naming a denied file outright",
      ENV_DENIED,
      "glob",
      { pattern: "src/.env" },
      /^glob was denied: reading "src\/\.env" matched the user rule/,
    ],
    [
      "grep whose glob enters a denied folder",
      SECRETS_DENIED,
      "grep",
      { pattern: "TOKEN", glob: "config/secrets/**" },
      /^grep was denied: reading "config\/secrets" matched the user rule/,
    ],
    [
      "glob in a folder the read tool's rule denies",
      READ_DENIED,
      "glob",
      { pattern: "*", path: "config/secrets" },
      /^glob was denied: reading "config\/secrets" matched the user rule \{permission: "read"/,
    ],
    [
      "grep of a file the read tool's rule denies",
      READ_DENIED,
      "grep",
      { pattern: "TOKEN", path: "config/secrets/prod.txt" },
      /^grep was denied: reading "config\/secrets\/prod\.txt" matched the user rule \{permission: "read"/,
    ],
  ])("refuses %s, saying which rule", async (_name, rules, tool, args, message) => {
    const envelope = await call(rules, tool, args);
    expect(envelope.type).toBe("error");
    const text = envelope.type === "error" ? envelope.error_text : "";
    expect(text).toMatch(message);
    expect(text).not.toContain(SECRET);
  });

  it("a pattern that only passes by a denied folder is not refused", async () => {
    const envelope = await call(SECRETS_DENIED, "glob", { pattern: "config/**" });
    expect(pathsOf(envelope)).toEqual(["config/app.json"]);
    expect(noteOf(envelope)).toMatch(/^left out 1 file that your permission rules deny reading/);
  });
});

// An `ask` rule on reading means: not without a person's yes. A walk cannot ask about each file it
// meets, so a search outside yolo mode leaves such files out (counted, the rule's pattern named)
// and the model searches their folder by `path`, which asks (headless: is refused).
describe("glob and grep under read ask rules", () => {
  const ASK: PermissionRule[] = [{ permission: "fs.read", pattern: "config/secrets/**", action: "ask" }];

  async function inMode(mode: "ask" | "allowlist" | "yolo", tool: string, args: Record<string, unknown>) {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({
        permissions: ASK,
        approvals: { mode: "ask", allowlist: ["grep:config/**", "glob:config/**"] },
      }),
    );
    const engine = await Engine.create({ root, latheHome: home, extensions: false });
    try {
      return await (await engine.openSession({ mode })).call(tool, args);
    } finally {
      await engine.close();
    }
  }

  it.each(SEARCHES)(
    "%s with no approver leaves out what the rule asks about, and says where",
    async (_n, tool, args) => {
      const envelope = await inMode("ask", tool, args);
      expect(pathsOf(envelope)).toEqual(
        ALL.filter((f) => f !== "config/secrets/prod.txt" && f !== "src/prod-link.txt"),
      );
      expect(JSON.stringify(envelope)).not.toContain("prod");
      expect(noteOf(envelope)).toBe(
        'left out 2 files that your permission rules ask about before reading (rule "config/secrets/**"); search their folder as "path" to be asked',
      );
    },
  );

  it.each(SEARCHES)("%s of their folder, once a person allows it, shows them", async (_n, tool, args) => {
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: ASK }));
    const engine = await Engine.create({ root, latheHome: home, extensions: false });
    try {
      const asked: string[] = [];
      const session = await engine.openSession({
        mode: "ask",
        approver: async (request) => {
          asked.push(request.toolId);
          return "once";
        },
      });
      const envelope = await session.call(tool, {
        ...args,
        pattern: tool === "glob" ? "*" : "TOKEN",
        path: "config/secrets",
      });
      expect(asked).toEqual([tool]);
      expect(pathsOf(envelope)).toEqual(["config/secrets/prod.txt"]);
      expect(noteOf(envelope)).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it.each(SEARCHES)(
    "%s in yolo mode shows them, as reading them would be allowed",
    async (_n, tool, args) => {
      const envelope = await inMode("yolo", tool, args);
      expect(pathsOf(envelope)).toEqual(ALL);
      expect(noteOf(envelope)).toBeUndefined();
    },
  );

  it.each(SEARCHES)("%s in allowlist mode shows what the allowlist lets through", async (_n, tool, args) => {
    const envelope = await inMode("allowlist", tool, args);
    expect(pathsOf(envelope)).toEqual(ALL);
  });
});
