import { DEFAULT_JSON_LAYOUT, formatJson, jsonLayoutOf } from "./json-layout.ts";
import { parseJsonText } from "./json-text.ts";
import { readSettingsBytes } from "./settings-bytes.ts";
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, realpath, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import { ConfigError } from "../errors/config-error.ts";
import { SettingsSchema, type Settings } from "./lathe-settings.ts";
import { settingsIssueLines } from "./settings-issues.ts";

/** A settings file's JSON object as written: validated, but without the defaults filled in. */
export type SettingsDocument = Record<string, unknown>;

/** Updates of one file in this process run one at a time, whichever `SettingsFile` asks. */
const queues = new Map<string, Promise<unknown>>();

function fieldList(error: z.ZodError, document: SettingsDocument): string {
  return settingsIssueLines(error.issues, document, SettingsSchema).join("\n");
}

function isObject(value: unknown): value is SettingsDocument {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The mode of the folders a save makes where none are (the umask still applies): Lathe's home
 * holds the user's settings, sessions and logs, readable by them alone, so a home Lathe makes is
 * 0700; a project's `.lathe/` is the project's own, made as its other folders are (the umask
 * decides). A folder that is there keeps its mode.
 */
export const SETTINGS_FOLDER_MODE = { user: 0o700, project: 0o777 } as const;

interface SettingsFileOptions {
  /** The mode of the folders a save makes: one of SETTINGS_FOLDER_MODE, chosen by the caller. */
  folderMode: number;
}

/**
 * A user's settings file, changed safely on their behalf: read it, check it against the settings
 * schema, apply a change to the JSON as written (no defaults added, nothing unknown kept), check
 * the result, and replace the file atomically (a temporary file beside it, renamed over it). A
 * file that is not valid JSON or not valid settings is refused with a message that says so and
 * is never overwritten; a change that would make it invalid names the field and is not saved.
 */
export class SettingsFile {
  readonly file: string;
  private readonly folderMode: number;

  constructor(file: string, options: SettingsFileOptions) {
    this.file = path.resolve(file);
    this.folderMode = options.folderMode;
  }

  /** The document as written and the settings it means; a missing file is `{}`. */
  async read(): Promise<{ document: SettingsDocument; settings: Settings }> {
    const { document } = await this.load();
    return { document, settings: this.validate(document, "read") };
  }

  /**
   * Apply `change` to the document (it edits the object in place) and save it. Resolves with
   * the settings the file now holds; rejects with a ConfigError, leaving the file as it was.
   */
  update(change: (document: SettingsDocument) => void): Promise<Settings> {
    const previous = queues.get(this.file) ?? Promise.resolve();
    const run = previous.then(() => this.updateNow(change));
    const settled = run.catch(() => undefined);
    queues.set(this.file, settled);
    void settled.then(() => {
      if (queues.get(this.file) === settled) queues.delete(this.file);
    });
    return run;
  }

  private async updateNow(change: (document: SettingsDocument) => void): Promise<Settings> {
    const { document, text } = await this.load();
    this.validate(document, "read");
    const next = structuredClone(document);
    change(next);
    const settings = this.validate(next, "change");
    // The file keeps its own indentation, line endings and final newline (a new one gets two
    // spaces, LF and a final newline): the app's change is the only difference a person sees.
    const layout = text === undefined ? DEFAULT_JSON_LAYOUT : jsonLayoutOf(text);
    await this.write(formatJson(next, layout), text);
    return settings;
  }

  /** The file's text and JSON object; `text` is undefined when the file does not exist. */
  private async load(): Promise<{ document: SettingsDocument; text: string | undefined }> {
    const file = readSettingsBytes(this.file);
    if (file.state === "missing") return { document: {}, text: undefined };
    if (file.state === "problem")
      throw new ConfigError(
        this.file,
        `${file.problem}. Lathe did not change anything.`,
        file.cause === undefined ? undefined : { cause: file.cause },
      );
    const bytes = file.bytes;
    const read = parseJsonText(bytes);
    if (!read.ok) {
      throw new ConfigError(
        this.file,
        `${this.file} is not valid JSON (${read.problem}). Lathe did not change it; fix its syntax by hand, then try again.`,
      );
    }
    if (!isObject(read.json)) {
      throw new ConfigError(
        this.file,
        `${this.file} must hold one JSON object ({...}). Lathe did not change it; fix it by hand, then try again.`,
      );
    }
    return { document: read.json, text: read.text };
  }

  private validate(document: SettingsDocument, when: "read" | "change"): Settings {
    const parsed = SettingsSchema.safeParse(document);
    if (parsed.success) return parsed.data;
    const message =
      when === "read"
        ? `${this.file} is not valid Lathe settings:\n${fieldList(parsed.error, document)}\nLathe did not change it; fix these fields by hand, then try again.`
        : `The change was not saved: it would make ${this.file} invalid:\n${fieldList(parsed.error, document)}\nCorrect these fields and try again.`;
    throw new ConfigError(this.file, message);
  }

  /** Replace the file (the target of a symlink) with `text`, unless someone changed it meanwhile. */
  private async write(text: string, expected: string | undefined): Promise<void> {
    const target = await realpath(this.file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT" || err.code === "ENOTDIR") return this.file;
      throw err;
    });
    const dir = path.dirname(target);
    await mkdir(dir, { recursive: true, mode: this.folderMode }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOTDIR" && err.code !== "EEXIST") throw err;
      throw new ConfigError(
        this.file,
        `Cannot save ${this.file}: ${dir}, or a folder above it, is a file, not a folder. Lathe did not change anything; rename or move that file so Lathe can make the folder, then try again.`,
        { cause: err },
      );
    });
    const mode = await stat(target).then(
      (info) => info.mode & 0o777,
      () => 0o600,
    );
    const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
    try {
      const handle = await open(temp, "wx", mode);
      try {
        await handle.writeFile(text, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      const current = await readFile(target, "utf8").catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return undefined;
        throw err;
      });
      if (current !== expected) {
        throw new ConfigError(
          this.file,
          `${this.file} changed while Lathe was saving a change to it, so Lathe left it as it is. Try again.`,
        );
      }
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      if (ConfigError.isInstance(err)) throw err;
      throw new ConfigError(
        this.file,
        `Cannot save ${this.file}: ${(err as Error).message}. It was left as it was; check the folder's permissions.`,
        { cause: err },
      );
    }
  }
}
