import type { UnsandboxedServerApprover, UnsandboxedServerRequest } from "../engine/index.ts";

/** Something that can put the question to a person: a window or a `lathe serve` connection. */
export interface UnsandboxedMcpAsker {
  /** Resolves true when the person lets the server start unconfined; false otherwise (or the UI went away). */
  askUnsandboxedMcp(request: UnsandboxedServerRequest): Promise<boolean>;
}

interface Waiting {
  request: UnsandboxedServerRequest;
  resolve(approved: boolean): void;
}

/** A yes holds for this server and exactly this start: its unmasked config, not the line shown. */
function keyOf(request: UnsandboxedServerRequest): string {
  return `${request.layer}\u0000${request.server}\u0000${request.configDigest}`;
}

/**
 * The host's answer to "may this stdio MCP server start without the OS sandbox?": it puts the
 * question to the person through the most recently connected UI (waiting for one when none is
 * connected yet, as when an engine starts before its window) and remembers a yes for that exact
 * server and start for as long as the host runs, so a reload does not ask again. "Exact" is the
 * digest of its whole config: a change the shown line masks (a token in its environment or its
 * arguments) asks again. A no, or
 * a UI that goes away first, leaves the server stopped; restarting it asks again.
 */
export class UnsandboxedMcpGate {
  private readonly askers: UnsandboxedMcpAsker[] = [];
  private readonly approved = new Set<string>();
  private waiting: Waiting[] = [];

  /** Give this to `Engine.create({approveUnsandboxedMcp})`. */
  readonly approver: UnsandboxedServerApprover = (request) => this.ask(request);

  /** A UI connected: it asks from now on (questions waiting for a UI go to it). Returns the detach. */
  attach(asker: UnsandboxedMcpAsker): () => void {
    this.askers.push(asker);
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) void this.ask(w.request).then(w.resolve);
    return () => {
      const index = this.askers.indexOf(asker);
      if (index !== -1) this.askers.splice(index, 1);
    };
  }

  private async ask(request: UnsandboxedServerRequest): Promise<boolean> {
    const key = keyOf(request);
    if (this.approved.has(key)) return true;
    const asker = this.askers.at(-1);
    if (!asker) return new Promise<boolean>((resolve) => this.waiting.push({ request, resolve }));
    const yes = await asker.askUnsandboxedMcp(request).catch(() => false);
    if (yes) this.approved.add(key);
    return yes;
  }
}
