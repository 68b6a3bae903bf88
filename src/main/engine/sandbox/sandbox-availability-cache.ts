import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "../config/zod-mini.ts";
import { installRoot } from "../config/install-root.ts";
import { findProgram } from "./program-path.ts";
import type { SandboxStatus } from "./sandbox-availability.ts";

/** The programs the sandbox needs on each platform; where PATH finds them is part of the key. */
const PROGRAMS: Partial<Record<NodeJS.Platform, readonly string[]>> = {
  linux: ["bwrap", "socat", "rg"],
  darwin: ["sandbox-exec", "rg"],
};

/** Kernel settings that decide whether bubblewrap may create its namespaces. */
const LINUX_KNOBS = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

const CachedStatus = z.lazy(() =>
  z.strictObject({
    key: z.string(),
    status: z.strictObject({
      active: z.boolean(),
      mechanism: z.optional(z.string()),
      reason: z.optional(z.string()),
      fix: z.optional(z.string()),
      warnings: z.array(z.string()),
    }),
  }),
);

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "-";
  }
}

/** Where PATH finds `program`, with the file's identity (a reinstall changes it), or "-". */
function located(program: string, env: NodeJS.ProcessEnv): string {
  const file = findProgram(program, env);
  const info = file === undefined ? undefined : statSync(file, { throwIfNoEntry: false });
  return file !== undefined && info ? `${file}@${info.ino}:${info.size}:${info.mtimeMs}` : "-";
}

/** This boot of this machine: Linux's boot id, else the boot time to the minute. */
function bootId(): string {
  if (process.platform === "linux") return readText("/proc/sys/kernel/random/boot_id");
  return String(Math.round((Date.now() - os.uptime() * 1000) / 60_000));
}

/**
 * The sandbox library's version (an upgrade may change what it needs), from the node_modules
 * folder Node would load it from: the nearest one above Lathe's own folder that has it. (Looked
 * up by hand: Node's resolver costs more than the rest of the key.)
 */
function libraryVersion(): string {
  for (let dir = installRoot(); ; dir = path.dirname(dir)) {
    const text = readText(path.join(dir, "node_modules", "@anthropic-ai", "sandbox-runtime", "package.json"));
    if (text !== "-") {
      try {
        return (JSON.parse(text) as { version?: string }).version ?? "?";
      } catch {
        return "?";
      }
    }
    if (path.dirname(dir) === dir) return "-";
  }
}

/**
 * What the machine check's answer depends on, hashed: the platform, the user, this boot, where
 * bubblewrap, socat and ripgrep (or sandbox-exec) are and which files they are, the kernel's user
 * namespace settings and the library's version. A few stats and reads — far cheaper than the
 * check, which starts a real sandbox. Installing a program, changing a sysctl or rebooting
 * changes the key, so the check runs again.
 */
export function machineKey(env: NodeJS.ProcessEnv = process.env): string {
  const parts = [
    "lathe-sandbox-availability-1",
    process.platform,
    process.arch,
    String(process.getuid?.() ?? "-"),
    bootId(),
    libraryVersion(),
    ...(PROGRAMS[process.platform] ?? []).map((program) => located(program, env)),
    ...(process.platform === "linux" ? LINUX_KNOBS.map(readText) : []),
  ];
  return createHash("sha256").update(parts.join("\u0000")).digest("hex");
}

/**
 * The machine check's last answer, kept in `file` (under $LATHE_HOME) for as long as its key
 * matches. A missing, unreadable or malformed file, or one for another key, is no answer: the
 * check runs and the file is written again. A stale "active" can only make a confined command
 * fail to start (the sandbox refuses, nothing runs unconfined); a stale "not active" only asks a
 * person more often: the cache never lets anything run with less containment.
 */
export class SandboxAvailabilityCache {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  /** The file's answer when it was written for `key`. */
  read(key: string): SandboxStatus | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return undefined;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    const cached = CachedStatus.safeParse(parsed);
    if (!cached.success || cached.data.key !== key) return undefined;
    const { active, mechanism, reason, fix, warnings } = cached.data.status;
    return {
      active,
      ...(mechanism !== undefined ? { mechanism } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(fix !== undefined ? { fix } : {}),
      warnings,
    };
  }

  /**
   * Keep `status` for `key`: written to a new file readable by the user alone (as every file of
   * $LATHE_HOME is: it says which sandbox guards this user's commands, and what it lacks), then
   * renamed over the old one, so a reader never sees half a file.
   */
  write(key: string, status: SandboxStatus): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify({ key, status })}\n`, { mode: 0o600, flag: "wx" });
      renameSync(temp, this.file);
    } catch (err) {
      rmSync(temp, { force: true });
      throw err;
    }
  }
}

/** The cache file under Lathe's data folder. */
export function sandboxAvailabilityCache(latheHome: string): SandboxAvailabilityCache {
  return new SandboxAvailabilityCache(path.join(latheHome, "cache", "sandbox-availability.json"));
}
