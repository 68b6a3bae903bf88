import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { z } from "../config/zod-mini.ts";
import { latheVersion } from "../config/install-root.ts";
import { errorMessage } from "../errors/error-message.ts";
import { RequirementSetSchema } from "../tools/requirement-set.ts";
import type { PluginManifest } from "./plugin-manifest.ts";

/**
 * Bump when what parseManifest accepts or returns changes, or what EntryChecker accepts: entries
 * written under another value are never read. (Lathe's version is part of every key too.)
 */
const RULES = "plugin-rules-1";

const CachedManifest = z.lazy(() =>
  z.strictObject({
    key: z.string(),
    manifest: z.strictObject({
      name: z.string(),
      version: z.string(),
      description: z.string(),
      kind: z.enum(["read", "edit", "search", "execute", "fetch", "think", "other"]),
      inputSchema: z.record(z.string(), z.unknown()),
      outputSchema: z.optional(z.record(z.string(), z.unknown())),
      requires: RequirementSetSchema,
      readOnly: z.boolean(),
      gated: z.boolean(),
      timeoutMs: z.number(),
      defer: z.boolean(),
      entry: z.string(),
      memoryMb: z.number(),
      wasm: z.boolean(),
      cpuMs: z.number(),
    }),
  }),
);

const CachedEntry = z.lazy(() => z.strictObject({ key: z.string(), entryChecked: z.literal(true) }));

/**
 * What loading a plugin concluded, kept by content hash under `$LATHE_HOME/cache/plugins/`, so
 * a start does not parse YAML, compile JSON Schemas or start a scratch isolate for plugins it has
 * seen before: the validated manifest of a tool.yaml text, and that an entry file's text passed
 * the entry check. Each entry is a pure function of the text it is keyed by (and of Lathe's
 * version and RULES), so a changed file is simply a different key. Only successes are kept: a
 * broken plugin is validated afresh each time and reported with its full message. A missing,
 * unreadable, malformed or mismatched entry is ignored (and written again after the check).
 * Nothing here decides trust: pins compare the hash of the files read now (plugin-hash.ts), and
 * an entry yields exactly what validating the same text again would.
 */
export class PluginManifestCache {
  readonly dir: string;
  /** Whether a failed write was already told (it is said once: see `write`). */
  private failureTold = false;

  constructor(dir: string) {
    this.dir = dir;
  }

  private key(kind: string, text: string): string {
    return createHash("sha256")
      .update(`${kind}\u0000${RULES}\u0000${latheVersion()}\u0000`)
      .update(text)
      .digest("hex");
  }

  private read(key: string): unknown {
    try {
      return JSON.parse(readFileSync(path.join(this.dir, `${key}.json`), "utf8"));
    } catch {
      return undefined;
    }
  }

  /**
   * Keep `value` under `key`. A cache that cannot be written only costs the next start the same
   * checks again, but a person should be able to find out why: the first failure is returned (a
   * note for the plugin log), later ones are not, as they say the same.
   */
  private write(key: string, value: object): string | undefined {
    try {
      // Owner-only, as the other folders and files Lathe makes in its home (a folder the person
      // made keeps its mode).
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const file = path.join(this.dir, `${key}.json`);
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(value), { mode: 0o600 });
      renameSync(temp, file);
      return undefined;
    } catch (err) {
      if (this.failureTold) return undefined;
      this.failureTold = true;
      return `could not keep what loading plugins concluded in ${this.dir} (${errorMessage(err)}): plugins are checked again at every start until that folder can be written`;
    }
  }

  /** The manifest validated before for exactly this tool.yaml text, if any. */
  manifest(yamlText: string): PluginManifest | undefined {
    const key = this.key("manifest", yamlText);
    const cached = CachedManifest.safeParse(this.read(key));
    if (!cached.success || cached.data.key !== key) return undefined;
    const { outputSchema, ...rest } = cached.data.manifest;
    return outputSchema === undefined ? rest : { ...rest, outputSchema };
  }

  /**
   * Keep the manifest parseManifest returned for this text. One that JSON would not give back
   * unchanged (a YAML value JSON cannot hold, such as .inf) is not kept. Returns the note of a
   * first failed write (see `write`).
   */
  rememberManifest(yamlText: string, manifest: PluginManifest): string | undefined {
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(manifest)), manifest)) return undefined;
    const key = this.key("manifest", yamlText);
    return this.write(key, { key, manifest });
  }

  /** Whether an entry file with exactly this text passed the entry check before. */
  entryChecked(entryText: string): boolean {
    const key = this.key("entry", entryText);
    const cached = CachedEntry.safeParse(this.read(key));
    return cached.success && cached.data.key === key;
  }

  /** Keep that this entry text passed the entry check. Returns the note of a first failed write. */
  rememberEntryChecked(entryText: string): string | undefined {
    const key = this.key("entry", entryText);
    return this.write(key, { key, entryChecked: true });
  }
}

/** The cache under Lathe's data folder. */
export function pluginManifestCache(latheHome: string): PluginManifestCache {
  return new PluginManifestCache(path.join(latheHome, "cache", "plugins"));
}
