import { CheckpointError } from "../errors/checkpoint-error.ts";
import type { ConversationStore, StoredPrompt } from "../store/conversation-store.ts";
import type { BlobStore } from "./blob-store.ts";
import type { Checkpoint, CheckpointStore } from "./checkpoint-store.ts";
import type { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { planRestore, type PreparedRestore, type RestorePlan } from "./restore-plan.ts";

/** Where to rewind to: before a prompt, named by its message number or by the run it started. */
export type RewindPoint = { message: number } | { runId: string };

export interface RewindPlan extends RestorePlan {
  sessionId: string;
  /** The prompt the conversation is cut before (it and everything after it go). */
  beforeMessage: number;
  runId: string;
  /** How many messages the conversation loses, and the runs they belong to. */
  messages: number;
  runs: string[];
  /** Task sessions started by the removed turns, whose changes are undone too. */
  tasks: string[];
}

/** The prompt a rewind point names; throws, listing the session's prompts, when it names none. */
function promptAt(conversations: ConversationStore, sessionId: string, point: RewindPoint): StoredPrompt {
  const prompts = conversations.prompts(sessionId);
  const found =
    "message" in point
      ? prompts.find((p) => p.seq === point.message)
      : prompts.find((p) => p.runId === point.runId);
  if (found) return found;
  const listed =
    prompts.length === 0
      ? "It has no prompts."
      : `Its prompts: ${prompts.map((p) => `${p.seq} (${JSON.stringify(p.text.slice(0, 40))})`).join(", ")}.`;
  const what =
    "message" in point
      ? `message ${point.message} is not a prompt of session ${sessionId}`
      : `session ${sessionId} has no run ${point.runId}`;
  throw new CheckpointError(
    `Cannot rewind: ${what}; a rewind goes back to before one of the person's prompts. ${listed}`,
  );
}

/** Task sessions started by tool calls of the removed turns, and theirs, recursively. */
function tasksFrom(conversations: ConversationStore, sessionId: string, fromSeq: number): string[] {
  const callIds = new Set<string>();
  for (const m of conversations.messages(sessionId)) {
    if (m.seq < fromSeq) continue;
    for (const part of m.parts) if (part.type === "tool-call") callIds.add(part.toolCallId);
  }
  const tasks: string[] = [];
  const visit = (parent: string, all: boolean): void => {
    for (const child of conversations.children(parent)) {
      if (!all && (child.toolCallId === null || !callIds.has(child.toolCallId))) continue;
      if (tasks.includes(child.childSessionId)) continue;
      tasks.push(child.childSessionId);
      visit(child.childSessionId, true);
    }
  };
  visit(sessionId, false);
  return tasks;
}

/**
 * Plan a rewind to before a prompt: every live (not yet restored) checkpoint of a call made
 * since that prompt was stored, in the session and in the tasks its removed turns started, is
 * undone, newest first; restores and earlier rewinds are not. Reads the disk; changes nothing.
 */
export async function planRewind(options: {
  sessionId: string;
  point: RewindPoint;
  root: string;
  store: CheckpointStore;
  conversations: ConversationStore;
  blobs: BlobStore;
  /** What Lathe hides from its tools: never read, written or deleted by the rewind. */
  hidden: HiddenPathSet;
}): Promise<{ prepared: PreparedRestore; plan: RewindPlan; undo: Checkpoint[] }> {
  const { sessionId, root, store, conversations } = options;
  const prompt = promptAt(conversations, sessionId, options.point);
  const tasks = tasksFrom(conversations, sessionId, prompt.seq);
  const live = (list: Checkpoint[]): Checkpoint[] =>
    list.filter((c) => c.kind === "tool" && c.restoredBy === null);
  const undo = [
    ...live(store.list(sessionId, prompt.seq)),
    ...tasks.flatMap((t) => live(store.list(t))),
  ].sort((a, b) => b.id - a.id);
  for (const c of undo) {
    if (c.root !== root) {
      throw new CheckpointError(
        `Checkpoint ${c.id} of this rewind was made in the folder ${c.root}, not ${root}. Run from that folder (or pass --root ${c.root}).`,
      );
    }
  }
  const oldest = undo.at(-1)?.id ?? Infinity;
  const chosen = new Set(undo.map((c) => c.id));
  const later = [
    ...[sessionId, ...tasks]
      .flatMap((s) => store.list(s))
      .filter((c) => c.id > oldest && !chosen.has(c.id) && c.restoredBy === null),
    ...(Number.isFinite(oldest) ? store.othersAfter(oldest, root, [sessionId, ...tasks]) : []),
  ].sort((a, b) => a.id - b.id);
  const prepared = await planRestore({ root, undo, later, blobs: options.blobs, hidden: options.hidden });
  const messages = conversations.messages(sessionId).filter((m) => m.seq >= prompt.seq);
  const plan: RewindPlan = {
    ...prepared.plan,
    sessionId,
    beforeMessage: prompt.seq,
    runId: prompt.runId,
    messages: messages.length,
    runs: [...new Set(messages.map((m) => m.runId))],
    tasks,
  };
  return { prepared, plan, undo };
}
