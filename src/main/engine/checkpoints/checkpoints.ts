import path from "node:path";
import { isWithin } from "../capability/canonical-path.ts";
import type { EngineEvents } from "../engine-events.ts";
import { CheckpointError } from "../errors/checkpoint-error.ts";
import { otherFolderMessage, unknownSessionMessage } from "../session/unknown-session.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import type { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import type { Db } from "../store/database.ts";
import { SessionStore } from "../store/session-store.ts";
import { describeClaimHolder, type FileClaimer } from "../tools/file-claimer.ts";
import { BlobStore } from "./blob-store.ts";
import type { CheckpointLimits } from "./checkpoint-limits.ts";
import { CheckpointStore, type Checkpoint, type EntryType } from "./checkpoint-store.ts";
import {
  applySteps,
  captureCurrent,
  decide,
  stopReason,
  type RestoreOptions,
  type SkippedPath,
} from "./restore-apply.ts";
import { planRestore, type PlannedPath, type PreparedRestore, type RestorePlan } from "./restore-plan.ts";
import { planRewind, type RewindPlan, type RewindPoint } from "./rewind-plan.ts";
import { SessionCheckpoints } from "./session-checkpoints.ts";
import { WorkspaceIndex } from "./workspace-index.ts";

/** One path a checkpoint covers, as listed. */
interface CheckpointFile {
  path: string;
  type: EntryType;
  change: "created" | "modified" | "deleted";
  /**
   * Set when the change turned the path from a file into a folder (`folder`) or back (`file`):
   * it is then "modified", but a person is told what it became.
   */
  became?: "file" | "folder";
  /** Why it may not be restorable (e.g. its previous content was not kept). */
  note?: string;
}

/** A checkpoint as hosts list it: its files summarised, without the workspace root. */
export type CheckpointSummary = Omit<Checkpoint, "root" | "entries"> & { files: CheckpointFile[] };

export interface RestoreOutcome {
  /** False when paths need a decision first: nothing was changed then. */
  applied: boolean;
  plan: RestorePlan;
  /** Paths with a conflict or that cannot be restored, without force or a choice for them. */
  blocked: PlannedPath[];
  /** Paths left as they are (by choice, unavailable under force, folders not empty). */
  skipped: SkippedPath[];
  /**
   * Paths that could not be written, and those a stop did not reach; the restore is then not
   * marked done, so it can be tried again.
   */
  failed: SkippedPath[];
  /** Why the restore was stopped (`signal`) before its last path, when it was. */
  stopped?: string;
  /** The checkpoint holding what the restore replaced: restore it to undo the restore. */
  undoCheckpoint: number | null;
}

interface RewindOutcome extends RestoreOutcome {
  plan: RewindPlan;
  /** Whether the conversation was cut (not when nothing was applied or a path failed). */
  conversationCut: boolean;
}

interface CheckpointsOptions {
  /** Canonical workspace root. */
  root: string;
  latheHome: string;
  /** Lathe's database (opened on first use). */
  database(): Db;
  conversations(): ConversationStore;
  limits: CheckpointLimits;
  events: EngineEvents;
  /** Why a session may not be rewound now ("here (a run is going on in it)", …), or undefined. */
  inUse(sessionId: string): string | undefined;
  /** Forget a session's read-state, so the model reads files again before changing them. */
  forgetReads(sessionId: string): void;
  /**
   * What Lathe hides from its tools (`sandbox.denyRead`, `$LATHE_HOME`'s private data), fresh
   * for each use: never indexed (so never copied into the checkpoint store) and never restored.
   */
  hidden(): HiddenPathSet;
  /** Who is changing which file, across sessions and processes (write and edit claim theirs too). */
  fileClaims(): FileClaimer;
}

function summaryOf(checkpoint: Checkpoint): CheckpointSummary {
  return {
    id: checkpoint.id,
    sessionId: checkpoint.sessionId,
    kind: checkpoint.kind,
    tool: checkpoint.tool,
    callId: checkpoint.callId,
    toolCallId: checkpoint.toolCallId,
    messageSeq: checkpoint.messageSeq,
    runId: checkpoint.runId,
    createdAt: checkpoint.createdAt,
    restoredBy: checkpoint.restoredBy,
    undoes: checkpoint.undoes,
    files: checkpoint.entries.map((e) => {
      const became =
        e.before.exists && e.after.exists && e.before.folder !== e.after.folder
          ? e.after.folder === true
            ? ("folder" as const)
            : ("file" as const)
          : undefined;
      return {
        path: e.path,
        type: e.type,
        change: !e.before.exists ? "created" : !e.after.exists ? "deleted" : "modified",
        ...(became !== undefined ? { became } : {}),
        ...(e.note !== undefined ? { note: e.note } : {}),
      };
    }),
  };
}

/**
 * Checkpoints of one engine's sessions: the hooks that record them (one per call of write, edit
 * or bash that changed files), and what hosts do with them — list, preview and restore one, or
 * rewind a session to before a prompt (its files and its conversation). A path the person (or
 * anything else) changed since is a conflict: it is reported, and overwritten only with `force`
 * or a per-path choice; whatever a restore overwrites is itself kept in a checkpoint.
 */
export class Checkpoints {
  private readonly options: CheckpointsOptions;
  private storeCache: CheckpointStore | undefined;
  private blobCache: BlobStore | undefined;
  private openDb: Db | undefined;

  constructor(options: CheckpointsOptions) {
    this.options = options;
  }

  private get db(): Db {
    const db = this.options.database();
    if (db !== this.openDb) {
      this.openDb = db;
      this.storeCache = new CheckpointStore(db);
      this.blobCache = new BlobStore(path.join(this.options.latheHome, "checkpoints", "blobs"), db);
    }
    return db;
  }

  private get store(): CheckpointStore {
    void this.db;
    return this.storeCache as CheckpointStore;
  }

  /** The content store (blobs by SHA-256 under `$LATHE_HOME/checkpoints/blobs`). */
  get blobs(): BlobStore {
    void this.db;
    return this.blobCache as BlobStore;
  }

  private index(sessionId: string): WorkspaceIndex {
    const { root, latheHome, limits } = this.options;
    const skip = [".lathe"];
    if (isWithin(root, latheHome) && latheHome !== root)
      skip.push(path.relative(root, latheHome).split(path.sep).join("/"));
    return new WorkspaceIndex({
      db: this.db,
      blobs: this.blobs,
      sessionId,
      root,
      skip,
      limits,
      hidden: this.options.hidden(),
    });
  }

  /** The pipeline's hooks for a persistent session's calls. */
  forSession(sessionId: string): SessionCheckpoints {
    return new SessionCheckpoints({
      sessionId,
      root: this.options.root,
      blobs: this.blobs,
      store: this.store,
      index: this.index(sessionId),
      limits: this.options.limits,
      onRecorded: (checkpoint) => this.options.events.emit("CheckpointRecorded", checkpoint),
      onSkipped: (call, reason) =>
        this.options.events.emit("CheckpointSkipped", {
          sessionId,
          toolId: call.tool.id,
          callId: call.callId,
          reason,
        }),
    });
  }

  /**
   * The session must exist; with `inThisFolder` (what is refused otherwise: "rewind it"), it must
   * also belong to this engine's folder (a rewind cuts its conversation, which another folder's
   * command must not do).
   */
  private requireSession(sessionId: string, inThisFolder?: string): void {
    const row = this.db.prepare("SELECT root FROM sessions WHERE id = ?").get(sessionId) as
      { root: string } | undefined;
    const root = this.options.root;
    if (row === undefined) {
      const similar = new SessionStore(this.db).idsStartingWith(sessionId, root);
      throw new CheckpointError(unknownSessionMessage(sessionId, root, similar));
    }
    if (inThisFolder !== undefined && row.root !== root) {
      throw new CheckpointError(otherFolderMessage(sessionId, row.root, root, inThisFolder));
    }
  }

  /** A session's checkpoints, oldest first; only for a session of this folder. */
  list(sessionId: string): CheckpointSummary[] {
    this.requireSession(sessionId, "list its checkpoints");
    return this.store.list(sessionId).map(summaryOf);
  }

  /**
   * One checkpoint of a session, with the state before and after of every path; only for a
   * session of this folder (its checkpoints are restored into that folder, not this one).
   */
  get(sessionId: string, id: number): Checkpoint {
    this.requireSession(sessionId, "restore its checkpoints");
    const checkpoint = this.store.get(id);
    if (!checkpoint || checkpoint.sessionId !== sessionId) {
      throw new CheckpointError(
        `Session ${sessionId} has no checkpoint ${id}. List its checkpoints with: lathe checkpoints --session ${sessionId}`,
      );
    }
    if (checkpoint.root !== this.options.root) {
      throw new CheckpointError(
        `Checkpoint ${id} was made in the folder ${checkpoint.root}, not ${this.options.root}. Run from that folder (or pass --root ${checkpoint.root}).`,
      );
    }
    return checkpoint;
  }

  private async prepareRestore(sessionId: string, id: number): Promise<PreparedRestore> {
    const checkpoint = this.get(sessionId, id);
    const later = [
      ...this.store.list(sessionId).filter((c) => c.id > id && c.restoredBy === null),
      ...this.store.othersAfter(id, this.options.root, [sessionId]),
    ].sort((a, b) => a.id - b.id);
    return planRestore({
      root: this.options.root,
      undo: [checkpoint],
      later,
      blobs: this.blobs,
      hidden: this.options.hidden(),
    });
  }

  /** What restoring a checkpoint would do to each of its paths (conflicts included); changes nothing. */
  async previewRestore(sessionId: string, id: number): Promise<RestorePlan> {
    return (await this.prepareRestore(sessionId, id)).plan;
  }

  /**
   * Put the files of a checkpoint back as they were before its call. With a conflict and no
   * `force` or choice for it, nothing is changed and the outcome lists what needs a decision.
   */
  async restore(sessionId: string, id: number, options: RestoreOptions = {}): Promise<RestoreOutcome> {
    const { ready, release } = await this.holdingFiles(async () => ({
      prepared: await this.prepareRestore(sessionId, id),
    }));
    try {
      const checkpoint = this.get(sessionId, id);
      return await this.apply(sessionId, ready.prepared, options, "restore", [checkpoint]);
    } finally {
      release();
    }
  }

  /**
   * Prepare a restore or a rewind, then prepare it again while holding every file it would put
   * back, and resolve with that second plan and the release of the files. A write or edit in
   * another session or process claims its file between its own check and its write: without this
   * one could change a file between the plan's conflict check and the restore's write, and the
   * restore would overwrite that change unseen. Held, such a call waits until `release`, then
   * finds the file changed. Throws CheckpointError when another call held a file too long.
   */
  private async holdingFiles<T extends { prepared: PreparedRestore }>(
    prepare: () => Promise<T>,
  ): Promise<{ ready: T; release: () => void }> {
    let held: { paths: Set<string>; release: () => void } | undefined;
    try {
      // The first plan only says which files to claim: it may be stale by the time they are.
      for (;;) {
        const ready = await prepare();
        const paths = ready.prepared.steps.map((step) => path.join(this.options.root, step.planned.path));
        const claimed = held;
        if (claimed && paths.every((p) => claimed.paths.has(p))) return { ready, release: claimed.release };
        const wanted = new Set([...paths, ...(claimed?.paths ?? [])]);
        claimed?.release();
        held = undefined;
        held = { paths: wanted, release: await this.claimFiles([...wanted]) };
      }
    } catch (err) {
      held?.release();
      throw err;
    }
  }

  private async claimFiles(paths: readonly string[]): Promise<() => void> {
    const claimed = await this.options.fileClaims().claim(paths);
    if (claimed.release) return claimed.release;
    const shown = path.relative(this.options.root, claimed.holder.path) || claimed.holder.path;
    throw new CheckpointError(
      `Another Lathe call (${describeClaimHolder(claimed.holder)}) is still changing ${shown}, so nothing was restored. Try again once it is done.`,
    );
  }

  private async prepareRewind(
    sessionId: string,
    point: RewindPoint,
  ): Promise<{ prepared: PreparedRestore; plan: RewindPlan; undo: Checkpoint[] }> {
    this.requireSession(sessionId, "rewind it");
    return planRewind({
      sessionId,
      point,
      root: this.options.root,
      store: this.store,
      conversations: this.options.conversations(),
      blobs: this.blobs,
      hidden: this.options.hidden(),
    });
  }

  /** What rewinding a session to before a prompt would do: files (with conflicts) and conversation. Changes nothing. */
  async previewRewind(sessionId: string, point: RewindPoint): Promise<RewindPlan> {
    return (await this.prepareRewind(sessionId, point)).plan;
  }

  /**
   * Rewind a session to before a prompt: undo every live checkpoint made since (newest first,
   * those of the tasks its turns started included), then cut the conversation there, so
   * `lathe run --resume` continues from that point. The session's read-state is forgotten (the
   * model reads files again before changing them). Refused while the session is open here, a run
   * holds it in another process, or another process has it open for tool calls.
   */
  async rewind(sessionId: string, point: RewindPoint, options: RestoreOptions = {}): Promise<RewindOutcome> {
    const why = this.options.inUse(sessionId);
    if (why)
      throw new CheckpointError(
        `Session ${sessionId} is in use ${why}. Stop the run (or let the process using it end), then rewind.`,
      );
    const { ready, release } = await this.holdingFiles(() => this.prepareRewind(sessionId, point));
    let outcome: RestoreOutcome;
    const { prepared, plan, undo } = ready;
    try {
      outcome = await this.apply(sessionId, { ...prepared, plan }, options, "rewind", undo);
    } finally {
      release();
    }
    const conversationCut = outcome.applied && outcome.failed.length === 0;
    if (conversationCut) {
      this.options.conversations().cut(sessionId, plan.beforeMessage);
      this.options.forgetReads(sessionId);
    }
    return { ...outcome, plan, conversationCut };
  }

  private async apply(
    sessionId: string,
    prepared: PreparedRestore,
    options: RestoreOptions,
    kind: "restore" | "rewind",
    undone: readonly Checkpoint[],
  ): Promise<RestoreOutcome> {
    const { root } = this.options;
    const stoppedEarly = stopReason(options.signal);
    if (stoppedEarly !== undefined)
      throw new CheckpointError(`Stopped (${stoppedEarly}) before anything was changed.`);
    const decision = decide(prepared.steps, options);
    const base = { plan: prepared.plan, skipped: decision.skipped, failed: [] as SkippedPath[] };
    if (decision.blocked.length > 0) {
      return { ...base, applied: false, blocked: decision.blocked, undoCheckpoint: null };
    }
    let undoCheckpoint: Checkpoint | undefined;
    let failed: SkippedPath[] = [];
    const skipped = [...decision.skipped];
    // A rewind always leaves a mark, even with no file to change: the checkpoints of the turns it
    // removes are retired by it, so a later rewind never picks them up again.
    let stopped: string | undefined;
    if (decision.run.length > 0 || (kind === "rewind" && undone.length > 0)) {
      const entries = await captureCurrent(root, decision.run, this.blobs, options.signal);
      undoCheckpoint = this.store.record({
        sessionId,
        root,
        kind,
        tool: kind,
        callId: null,
        toolCallId: null,
        undoes: undone.map((c) => c.id),
        entries,
      });
      this.options.events.emit("CheckpointRecorded", undoCheckpoint);
      const report = await applySteps(root, decision.run, this.blobs, options.signal);
      skipped.push(...report.skipped);
      failed = report.failed;
      stopped = report.stopped;
    }
    if (failed.length === 0 && undoCheckpoint) {
      this.store.markRestored(
        undone.map((c) => c.id),
        undoCheckpoint.id,
      );
      // Undoing a restore brings back the changes it had undone.
      this.store.clearRestored(undone.flatMap((c) => (c.kind === "tool" ? [] : c.undoes)));
    }
    return {
      applied: true,
      plan: prepared.plan,
      blocked: [],
      skipped,
      failed,
      ...(stopped !== undefined ? { stopped } : {}),
      undoCheckpoint: undoCheckpoint?.id ?? null,
    };
  }

  /** A session ended: its workspace index is dropped (checkpoints stay), then unused blobs are collected. */
  async sessionClosed(sessionId: string): Promise<void> {
    this.index(sessionId).drop();
    await this.collectGarbage();
  }

  /** Remove blobs no checkpoint or index refers to any more (after the grace period). Returns how many. */
  collectGarbage(graceMs = this.options.limits.gcGraceMs): Promise<number> {
    return this.blobs.collectGarbage(graceMs);
  }
}
