import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { projectGrantsFingerprint } from "../config/project-settings-grants.ts";
import { ConfigError } from "../errors/config-error.ts";
import { FileLockTimeout, withFileLock } from "../store/file-lock.ts";

const ProjectTrustSchema = z.lazy(() =>
  z.strictObject({
    trustedAt: z.string(),
    /**
     * What the project's settings granted when the person trusted it (project-settings-grants.ts);
     * absent in entries an older Lathe wrote, which therefore match nothing.
     */
    settings: z.string().optional(),
    /** Descriptor hashes approved for this project, by key (filled by the extensions layer). */
    pins: z.record(z.string(), z.string()).default({}),
  }),
);
type ProjectTrust = z.infer<typeof ProjectTrustSchema>;

const TrustFileSchema = z.lazy(() =>
  z.strictObject({
    version: z.literal(1),
    projects: z.record(z.string(), ProjectTrustSchema),
    /** Pins for extensions outside any project (the user's own plugins and MCP servers). */
    globalPins: z.record(z.string(), z.string()).default({}),
  }),
);
type TrustFile = z.infer<typeof TrustFileSchema>;

/**
 * Where a folder stands: never trusted (or revoked), trusted with the settings it has now, or
 * trusted while its settings granted something else — changed since (a `git pull`, an edit by
 * hand, a checkout) or trusted by an older Lathe that did not record them.
 */
export type ProjectTrustState = "untrusted" | "trusted" | "settings-changed";

/**
 * Which project folders the user trusts, keyed by real path, in `$LATHE_HOME/trust.json`, with
 * what their settings granted at that moment. Until a folder is trusted — and again as soon as
 * its settings grant anything other than what was trusted — its settings may only add deny
 * rules: a person reviewed those grants, not whatever the folder says later.
 */
export class TrustStore {
  readonly file: string;

  constructor(latheHome: string) {
    this.file = path.join(latheHome, "trust.json");
  }

  private load(): TrustFile {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT")
        return { version: 1, projects: {}, globalPins: {} };
      throw new ConfigError(this.file, `Cannot read ${this.file}: ${(err as Error).message}`, { cause: err });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(
        this.file,
        `${this.file} is not valid JSON (${(err as Error).message}); fix or delete it.`,
      );
    }
    const parsed = TrustFileSchema.safeParse(json);
    if (!parsed.success) {
      throw new ConfigError(
        this.file,
        `${this.file} is malformed (${parsed.error.issues[0]?.message}); fix or delete it.`,
      );
    }
    return parsed.data;
  }

  private save(data: TrustFile): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
  }

  /**
   * Read, change and write the file as one step across processes (`lathe trust` of two folders
   * at once, two runs pinning a server on first sight): neither loses the other's change.
   */
  private update<T>(change: (data: TrustFile) => T): T {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    try {
      return withFileLock(this.file, () => {
        const data = this.load();
        const before = JSON.stringify(data);
        const result = change(data);
        if (JSON.stringify(data) !== before) this.save(data);
        return result;
      });
    } catch (err) {
      if (err instanceof FileLockTimeout) throw new ConfigError(this.file, err.message, { cause: err });
      throw err;
    }
  }

  get(realRoot: string): ProjectTrust | undefined {
    return this.load().projects[realRoot];
  }

  state(realRoot: string): ProjectTrustState {
    const entry = this.get(realRoot);
    if (entry === undefined) return "untrusted";
    const now = projectGrantsFingerprint(realRoot);
    return now !== undefined && entry.settings === now ? "trusted" : "settings-changed";
  }

  /** Trusted, and its settings grant exactly what they granted when it was trusted. */
  isTrusted(realRoot: string): boolean {
    return this.state(realRoot) === "trusted";
  }

  /**
   * Trust the folder with what its settings grant now, or with `settings`, the digest of what a
   * review showed the person (see ProjectTrustState): a change since then is not trusted.
   */
  trust(
    realRoot: string,
    pins: Record<string, string> = {},
    settings: string | undefined = projectGrantsFingerprint(realRoot),
  ): ProjectTrust {
    return this.update((data) => {
      const entry: ProjectTrust = {
        trustedAt: new Date().toISOString(),
        ...(settings !== undefined ? { settings } : {}),
        pins: { ...data.projects[realRoot]?.pins, ...pins },
      };
      data.projects[realRoot] = entry;
      return entry;
    });
  }

  /** Descriptor pins: a project's (by real root) or, with "global", the user's own extensions'. */
  pins(scope: string | "global"): Record<string, string> {
    const data = this.load();
    return scope === "global" ? data.globalPins : (data.projects[scope]?.pins ?? {});
  }

  /** Add or replace pins (a project's pins are kept only while it is trusted). */
  pin(scope: string | "global", pins: Record<string, string>): void {
    this.update((data) => {
      if (scope === "global") data.globalPins = { ...data.globalPins, ...pins };
      else {
        const project = data.projects[scope];
        if (!project) throw new Error(`Cannot pin for ${scope}: the project is not trusted.`);
        project.pins = { ...project.pins, ...pins };
      }
    });
  }

  revoke(realRoot: string): boolean {
    return this.update((data) => {
      if (!data.projects[realRoot]) return false;
      delete data.projects[realRoot];
      return true;
    });
  }
}
