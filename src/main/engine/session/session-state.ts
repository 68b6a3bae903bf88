import { randomBytes } from "node:crypto";
import { chmod, mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { makeOwnedTempDir } from "../temp/owned-temp-dir.ts";
import type { Asker } from "../tools/question-request.ts";
import type { TaskHost } from "../tools/task-host.ts";
import type { TodoList } from "../tools/todo-list.ts";
import type { ToolExposure } from "../tools/tool-exposure.ts";
import type { FileStamp, ToolSession } from "../tools/tool-session.ts";
import { removeAbandonedPartials, writeComplete } from "./partial-file.ts";

/** Where a persistent session writes what it learns; ephemeral sessions have none. */
export interface SessionPersistence {
  recordRead(absolutePath: string, stamp: FileStamp): void;
}

interface SessionStateOptions {
  id: string;
  /** The session's working directory (under `$LATHE_HOME/sessions/`). */
  dir: string;
  /** What a resumed session read before. */
  reads?: Map<string, FileStamp>;
  persistence?: SessionPersistence;
  /** Who answers the question tool; absent when the host is headless. */
  asker?: Asker;
  exposure: ToolExposure;
  todos: TodoList;
}

/**
 * The per-session state tools may use: the read-state of files, the session's working
 * directory, where sidecar files of truncated outputs live until the session closes, and the
 * session's services (see ToolSession).
 */
export class SessionState implements ToolSession {
  readonly id: string;
  /** The session's working directory (under `$LATHE_HOME/sessions/`). */
  readonly dir: string;
  private readonly reads: Map<string, FileStamp>;
  private readonly persistence: SessionPersistence | undefined;
  readonly asker: Asker | undefined;
  readonly exposure: ToolExposure;
  readonly todos: TodoList;
  private taskHost: TaskHost | undefined;
  private temp: Promise<string> | undefined;

  constructor(options: SessionStateOptions) {
    this.id = options.id;
    this.dir = options.dir;
    this.reads = options.reads ?? new Map();
    this.persistence = options.persistence;
    this.asker = options.asker;
    this.exposure = options.exposure;
    this.todos = options.todos;
  }

  get tasks(): TaskHost | undefined {
    return this.taskHost;
  }

  /** Make `host` (an agent run) answer this session's `task` calls; returns the function that detaches it. */
  attachTaskHost(host: TaskHost): () => void {
    this.taskHost = host;
    return () => {
      if (this.taskHost === host) this.taskHost = undefined;
    };
  }

  recordRead(absolutePath: string, stamp: FileStamp): void {
    this.reads.set(absolutePath, stamp);
    this.persistence?.recordRead(absolutePath, stamp);
  }

  lastRead(absolutePath: string): FileStamp | undefined {
    return this.reads.get(absolutePath);
  }

  get sidecarDir(): string {
    return path.join(this.dir, "sidecars");
  }

  /**
   * Make the sidecar folder (and the session's folder above it) readable by the user alone, as
   * the rest of `$LATHE_HOME` is: a sidecar holds a tool's whole output (a file read, a command's
   * output), which may be a secret. A folder an older Lathe made open to others is narrowed.
   */
  private async makeSidecarDir(): Promise<void> {
    await mkdir(this.sidecarDir, { recursive: true, mode: 0o700 });
    if (process.platform === "win32") return;
    for (const dir of [this.dir, this.sidecarDir]) {
      if (((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
    }
  }

  /** A fresh sidecar file path for a tool's output (its folder created); write it mode 0600. */
  async newSidecarPath(toolId: string): Promise<string> {
    await this.makeSidecarDir();
    return path.join(
      this.sidecarDir,
      `${toolId.replace(/[^A-Za-z0-9_-]/g, "_")}-${randomBytes(6).toString("hex")}.txt`,
    );
  }

  /** Save a file a tool produced (an image) beside the sidecars; returns its absolute path. */
  async writeSidecarFile(toolId: string, bytes: Uint8Array, extension: string): Promise<string> {
    await this.makeSidecarDir();
    const file = path.join(
      this.sidecarDir,
      `${toolId.replace(/[^A-Za-z0-9_-]/g, "_")}-${randomBytes(6).toString("hex")}.${extension.replace(/[^a-z0-9]/gi, "")}`,
    );
    await writeComplete(file, bytes);
    return file;
  }

  /** Write the whole output of a truncated call; returns the sidecar's absolute path. */
  async writeSidecar(toolId: string, text: string): Promise<string> {
    const file = await this.newSidecarPath(toolId);
    await writeComplete(file, text);
    return file;
  }

  /** Clear what a process that died while writing left in the sidecar folder (`*.partial`). */
  async removeAbandonedFiles(): Promise<void> {
    await removeAbandonedPartials(this.sidecarDir);
  }

  /**
   * The temp folder (TMPDIR) of the processes this session starts, the one place besides the
   * workspace their OS sandbox lets them write. Outside `$LATHE_HOME`, which stays read-only to
   * them; made fresh (mkdtemp) on first use, so nobody can have prepared it. Named after the
   * session and this process, so a later run sweeps it if this one is killed (temp/).
   */
  tempDir(): Promise<string> {
    this.temp ??= makeOwnedTempDir(this.id).catch((err: unknown) => {
      this.temp = undefined;
      throw err;
    });
    return this.temp;
  }

  /** Remove the processes' temp folder (when the session ends or is let go). */
  async removeTemp(): Promise<void> {
    const temp = this.temp;
    this.temp = undefined;
    const dir = await temp?.catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  /** Remove the working directory, every sidecar in it, and the processes' temp folder. */
  async removeFiles(): Promise<void> {
    await Promise.all([rm(this.dir, { recursive: true, force: true }), this.removeTemp()]);
  }
}
