import type { AnyTool } from "../tools/contract.ts";
import type { BlobStore } from "./blob-store.ts";
import { ReportedChanges, ScannedChanges, type CallJournal } from "./call-journal.ts";
import type { CheckpointLimits } from "./checkpoint-limits.ts";
import type { Checkpoint, CheckpointStore } from "./checkpoint-store.ts";
import type { FileCheckpoint } from "./file-checkpoint.ts";
import { withoutOthersChanges } from "./others-changes.ts";
import { WorkspaceTooLarge, type IndexSnapshot, type WorkspaceIndex } from "./workspace-index.ts";

/** The call a checkpoint is opened for. */
interface CheckpointedCall {
  tool: AnyTool;
  /** The engine's id of the call. */
  callId: string;
  /** The model's id of the call, when an agent made it. */
  toolCallId?: string;
  signal?: AbortSignal;
}

/** What the pipeline holds while a call that may change files runs. */
export interface OpenCheckpoint {
  /** Handed to the tool as `runtime.checkpoint`. */
  readonly files: FileCheckpoint | undefined;
  /** Once the call has ended (whatever its outcome): record what it changed, if anything. */
  close(): Promise<Checkpoint | undefined>;
}

/** How the pipeline checkpoints a session's calls. */
export interface CallCheckpoints {
  /**
   * Open the checkpoint of a call whose tool declares `checkpoints`, before it runs (a scanning
   * tool's workspace is scanned now). Undefined when the call gets none. Throws when what must be
   * kept cannot be: the call must not run then.
   */
  open(call: CheckpointedCall): Promise<OpenCheckpoint | undefined>;
}

interface SessionCheckpointsOptions {
  sessionId: string;
  root: string;
  blobs: BlobStore;
  store: CheckpointStore;
  index: WorkspaceIndex;
  limits: CheckpointLimits;
  /** Told of each checkpoint recorded. */
  onRecorded(checkpoint: Checkpoint): void;
  /** Told when a call's changes cannot be checkpointed (e.g. the workspace is too large to scan). */
  onSkipped(call: CheckpointedCall, reason: string): void;
}

/** A persistent session's checkpoints as the pipeline sees them: one per call that changed files. */
export class SessionCheckpoints implements CallCheckpoints {
  private readonly options: SessionCheckpointsOptions;
  /** The workspace index after the last scan, so the next one need not load it from the database. */
  private snapshot: IndexSnapshot | undefined;

  constructor(options: SessionCheckpointsOptions) {
    this.options = options;
  }

  async open(call: CheckpointedCall): Promise<OpenCheckpoint | undefined> {
    const { root, blobs, index, limits } = this.options;
    let journal: CallJournal;
    let othersAfter: number | undefined;
    if (call.tool.checkpoints === "reported") {
      journal = new ReportedChanges(root, blobs);
    } else if (call.tool.checkpoints === "scan") {
      // What other sessions record from now on, while the command runs, is theirs (see below).
      othersAfter = this.options.store.newestId();
      let before: IndexSnapshot;
      try {
        before = (await index.scan(this.snapshot, call.signal)).snapshot;
        this.snapshot = before;
      } catch (err) {
        this.snapshot = undefined;
        if (!(err instanceof WorkspaceTooLarge)) throw err;
        this.options.onSkipped(call, `${call.tool.id} changes are not checkpointed: ${err.message}`);
        return undefined;
      }
      journal = new ScannedChanges(
        before,
        async (previous) => {
          this.snapshot = undefined;
          const after = await index.scan(previous);
          this.snapshot = after.snapshot;
          return after;
        },
        limits,
      );
    } else {
      return undefined;
    }
    return {
      files: journal.files,
      close: async () => {
        const scanned = await journal.entries();
        const entries =
          othersAfter === undefined || scanned.length === 0
            ? scanned
            : withoutOthersChanges(
                scanned,
                this.options.store.othersSince(othersAfter, root, this.options.sessionId),
              );
        if (entries.length === 0) return undefined;
        const checkpoint = this.options.store.record({
          sessionId: this.options.sessionId,
          root,
          kind: "tool",
          tool: call.tool.id,
          callId: call.callId,
          toolCallId: call.toolCallId ?? null,
          undoes: [],
          entries,
        });
        this.options.onRecorded(checkpoint);
        return checkpoint;
      },
    };
  }
}
