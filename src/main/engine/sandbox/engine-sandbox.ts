import { SandboxError } from "../errors/sandbox-error.ts";
import type { ProtectedPaths } from "../policy/protected-paths.ts";
import { latheHomeHiding } from "./lathe-home-private.ts";
import { isPresent } from "./path-present.ts";
import type { Confinement, ConfinementOptions, ProcessSandbox } from "./process-sandbox.ts";
import { sandboxAvailability, type SandboxProbe, type SandboxStatus } from "./sandbox-availability.ts";
import type { SandboxAvailabilityCache } from "./sandbox-availability-cache.ts";
import type { EffectiveSandboxSettings } from "./sandbox-settings.ts";

/** Where one confined process may write and connect, beyond the workspace. */
interface ConfinementScope {
  /** Its own temp folder (created on first use). */
  tempDir(): Promise<string>;
  /** More folders it may write (an MCP server's working folder). */
  writable?: readonly string[];
  /** Folders inside the hidden ones its processes may read after all (a session's own sidecar files). */
  readable?: readonly string[];
  /** More hosts it may reach (an MCP server's own list). */
  network?: readonly string[];
  /**
   * Its processes run for a long time (an MCP server): protected files that do not exist yet are
   * then left alone at the end rather than removed if they appeared (see confine-command.ts).
   */
  longRunning?: boolean;
}

interface EngineSandboxInput {
  root: string;
  settings: EffectiveSandboxSettings;
  protectedPaths: ProtectedPaths;
  /** The machine check (tests inject one); default: the real machine, once per process. */
  probe?: SandboxProbe;
  /** Where the real machine's answer is kept between processes (see sandbox-availability-cache.ts). */
  cache?: SandboxAvailabilityCache;
  /** Lathe's own key variables (config/key-variables.ts); `settings.denyEnv` is added to them. */
  hiddenEnv?: readonly string[];
}

/**
 * One engine's OS sandbox: whether it is active (settings and machine), the workspace's
 * protected paths, and confinement for every process the engine starts — bash, plugin
 * commands and stdio MCP servers: writable = the workspace and the process's temp folder (plus
 * `sandbox.allowWrite`) minus the protected paths; network = `sandbox.allowNetwork` (default
 * none); its own PID namespace; the whole process tree ends with the process.
 */
export class EngineSandbox {
  readonly status: SandboxStatus;
  readonly settings: EffectiveSandboxSettings;
  readonly protectedPaths: ProtectedPaths;
  /**
   * Names and patterns of the variables no process the engine starts inherits, sandbox or not:
   * Lathe's own keys and `sandbox.denyEnv` (see ProcessSandbox.hiddenEnv).
   */
  readonly hiddenEnv: readonly string[];
  private readonly root: string;

  private constructor(input: EngineSandboxInput, status: SandboxStatus) {
    this.root = input.root;
    this.hiddenEnv = [...(input.hiddenEnv ?? []), ...input.settings.denyEnv];
    this.settings = input.settings;
    this.protectedPaths = input.protectedPaths;
    this.status = status;
  }

  static async create(input: EngineSandboxInput): Promise<EngineSandbox> {
    return new EngineSandbox(input, await sandboxAvailability(input.settings, input.probe, input.cache));
  }

  /** Said once when the sandbox is off: why, what that means, and the fix. */
  get notice(): string | undefined {
    if (this.status.active) return undefined;
    return `The OS sandbox is not active: ${this.status.reason}. Until it is, every bash command that is not provably read-only, every plugin command and every stdio MCP server needs a person's approval (headless, they are refused). To fix it: ${this.status.fix}. Run \`lathe doctor\` to check.`;
  }

  /** Confinement for the processes of one scope (a session, an MCP server). */
  scope(scope: ConfinementScope): ProcessSandbox {
    return {
      status: this.status,
      hiddenEnv: this.hiddenEnv,
      confinement: (options = {}) => this.confinement(scope, options),
    };
  }

  private async confinement(scope: ConfinementScope, options: ConfinementOptions): Promise<Confinement> {
    if (!this.status.active) {
      throw new SandboxError(
        `The OS sandbox is not active (${this.status.reason}), so nothing can run in it.`,
      );
    }
    const tmp = await scope.tempDir();
    const latheHome = latheHomeHiding(this.protectedPaths.latheHome, this.settings.denyRead);
    const readable = [...latheHome.readable, ...(scope.readable ?? [])];
    const network = [...new Set([...this.settings.allowNetwork, ...(scope.network ?? [])])];
    return {
      spec: {
        writable: [this.root, tmp, ...(scope.writable ?? []), ...this.settings.allowWrite],
        readOnly: this.protectedPaths.entries().map((entry) => ({ ...entry })),
        network,
        // Only those there now: the sandbox leaves a missing one alone anyway, after looking for
        // it at a cost per entry, and most of the default list is missing on most machines.
        unreadable: [...latheHome.unreadable, ...this.settings.denyRead.filter(isPresent)],
        ...(readable.length > 0 ? { readable } : {}),
        missingFiles: scope.longRunning ? "leave" : "undo",
        // Repositories a command plants there are made inert when it ends (planted-repos.ts).
        ...(scope.longRunning ? {} : { workspace: this.root }),
        ...(options.pty ? { pty: true } : {}),
      },
      // SHLVL: bash reads ~/.bashrc when its stdin is a socket (as Node's pipes are) and it is a
      // first-level shell; each bash on the way into the sandbox counts as the second.
      // npm_config_offline: with no network at all, npm and npx answer from their cache, or fail
      // at once with ENOTCACHED, instead of retrying the registry for over a minute first.
      env: { TMPDIR: tmp, SHLVL: "1", ...(network.length === 0 ? { npm_config_offline: "true" } : {}) },
    };
  }
}
