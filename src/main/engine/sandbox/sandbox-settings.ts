import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_HIDDEN_ENV } from "./hidden-env.ts";
import { DEFAULT_HIDDEN_SECRETS, movedSecrets } from "./hidden-secrets.ts";

/** A host the sandboxed process may reach: `example.com`, `*.example.com`, optionally `:port`. */
export const HostPatternSchema = z.lazy(() =>
  z
    .string()
    .regex(
      /^(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::\d{1,5})?$/,
      'use a host name, "*.domain" for its subdomains, optionally with ":port" (e.g. "registry.npmjs.org", "*.github.com:443")',
    ),
);

/** A path in sandbox settings: absolute or `~/…`. */
export const SandboxPath = z.lazy(() =>
  z
    .string()
    .min(1)
    .refine((p) => p.startsWith("/") || p === "~" || p.startsWith("~/"), {
      message: 'use an absolute path or one starting with "~/"',
    }),
);

/** The name of one environment variable (an MCP server's `allowEnv`). */
export const EnvVariableName = z.lazy(() =>
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'use the name of an environment variable, e.g. "GH_TOKEN"'),
);

/** An entry of `sandbox.denyEnv`: a variable's name, or a pattern of names with `*`. */
const EnvNamePattern = z.lazy(() =>
  z
    .string()
    .regex(
      /^[^\s=]+$/,
      'use a variable\'s name or a pattern where * stands for any characters (e.g. "GH_TOKEN", "*_TOKEN"), without spaces or "="',
    ),
);

/**
 * `sandbox` in settings: the OS sandbox every process Lathe starts runs in. Fields are optional so
 * a project's settings can say only what they narrow.
 */
export const SandboxSettingsSchema = z.lazy(() =>
  z
    .strictObject({
      enabled: z
        .boolean()
        .optional()
        .describe("Run bash, plugin commands and stdio MCP servers in the OS sandbox (default true)."),
      allowWrite: z
        .array(SandboxPath)
        .optional()
        .describe("Folders the sandboxed processes may write besides the workspace and their temp folder."),
      allowNetwork: z
        .array(HostPatternSchema)
        .optional()
        .describe("Hosts the sandboxed processes may reach (default: none)."),
      denyRead: z
        .array(SandboxPath)
        .optional()
        .describe(
          "Files and folders the sandboxed processes may not read (default: where credentials usually live, e.g. ~/.ssh, ~/.aws, ~/.gnupg; [] hides none).",
        ),
      denyEnv: z
        .array(EnvNamePattern)
        .optional()
        .describe(
          'Environment variables bash, plugin commands and stdio MCP servers start without: names, or patterns with * matching whole names in any case (default: the usual credential variables, e.g. "GH_TOKEN", "*_TOKEN", "*_SECRET_ACCESS_KEY", "*_PASSWORD"; [] withholds none but Lathe\'s own keys).',
        ),
    })
    .describe("The OS sandbox (bubblewrap on Linux, Seatbelt on macOS) around every process Lathe starts."),
);
export type SandboxSettings = z.infer<typeof SandboxSettingsSchema>;

/** The sandbox settings in force for one workspace. */
export interface EffectiveSandboxSettings {
  enabled: boolean;
  /** Absolute paths (`~` expanded). */
  allowWrite: string[];
  allowNetwork: string[];
  /** Absolute paths (`~` expanded) no sandboxed process may read: the user's, plus the project's. */
  denyRead: string[];
  /**
   * Names and `*` patterns of the variables no process Lathe starts for a model or an extension
   * inherits (hidden-env.ts): the user's, plus the project's.
   */
  denyEnv: string[];
  /** The settings file that decided `enabled` (for messages: where to turn it back on). */
  enabledBy: string;
  /** What the project asked for and did not get (it may only narrow). */
  notices: string[];
}

/** A sandbox setting's path, absolute: `~` expanded. */
export function expandHome(p: string): string {
  if (p === "~") return os.homedir();
  return p.startsWith("~/") ? path.join(os.homedir(), p.slice(2)) : path.resolve(p);
}

/** The user's entries the project also lists; the project's others are reported, never added. */
function narrowed(
  user: readonly string[],
  project: readonly string[] | undefined,
  key: (entry: string) => string,
): { kept: string[]; refused: string[] } {
  if (project === undefined) return { kept: [...user], refused: [] };
  const wanted = new Set(project.map(key));
  const offered = new Set(user.map(key));
  return {
    kept: user.filter((entry) => wanted.has(key(entry))),
    refused: project.filter((entry) => !offered.has(key(entry))),
  };
}

/**
 * A list that hides more the longer it is (`denyRead`, `denyEnv`): the user's entries, else the
 * defaults, plus the project's (which can only add), each kept once by `key`.
 */
function hidingMore(
  user: readonly string[] | undefined,
  defaults: () => readonly string[],
  project: readonly string[] | undefined,
  key: (entry: string) => string,
): string[] {
  const byKey = new Map<string, string>();
  for (const entry of [...(user ?? defaults()), ...(project ?? [])])
    if (!byKey.has(key(entry))) byKey.set(key(entry), entry);
  return [...byKey.values()];
}

/**
 * The user's settings decide; a project (trusted or not) may only narrow them: turn the sandbox
 * on, keep fewer of the user's `allowWrite` and `allowNetwork` entries (an entry the user
 * does not have is ignored, with a notice), hide more paths (`denyRead`, added to the
 * user's, whose default is DEFAULT_HIDDEN_SECRETS plus where `env` moved them, see movedSecrets)
 * and withhold more variables (`denyEnv`, added to the user's, default DEFAULT_HIDDEN_ENV).
 * It can never turn the sandbox off or widen it.
 */
export function effectiveSandboxSettings(
  user: SandboxSettings | undefined,
  project: SandboxSettings | undefined,
  files: { user: string; project: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): EffectiveSandboxSettings {
  const userEnabled = user?.enabled ?? true;
  const projectTurnsOn = project?.enabled === true && !userEnabled;
  const notices: string[] = [];
  if (project?.enabled === false && userEnabled) {
    notices.push(
      `${files.project} sets sandbox.enabled to false; a project cannot turn the OS sandbox off, so it stays on (only ${files.user} can turn it off).`,
    );
  }
  const writes = narrowed((user?.allowWrite ?? []).map(expandHome), project?.allowWrite, expandHome);
  const hosts = narrowed(user?.allowNetwork ?? [], project?.allowNetwork, (h) => h.toLowerCase());
  const refused = [
    ...writes.refused.map((w) => `allowWrite "${w}"`),
    ...hosts.refused.map((h) => `allowNetwork "${h}"`),
  ];
  if (refused.length > 0) {
    notices.push(
      `${files.project} asks the sandbox for ${refused.join(", ")}, which ${files.user} does not grant; a project can only narrow the sandbox, so ${refused.length > 1 ? "they are" : "it is"} ignored.`,
    );
  }
  return {
    enabled: userEnabled || projectTurnsOn,
    allowWrite: writes.kept,
    allowNetwork: hosts.kept,
    denyRead: hidingMore(
      user?.denyRead,
      () => [...DEFAULT_HIDDEN_SECRETS, ...movedSecrets(env, os.homedir())],
      project?.denyRead,
      expandHome,
    ).map(expandHome),
    denyEnv: hidingMore(
      user?.denyEnv,
      () => DEFAULT_HIDDEN_ENV,
      project?.denyEnv,
      (e) => e.toUpperCase(),
    ),
    enabledBy: projectTurnsOn ? files.project : files.user,
    notices,
  };
}
