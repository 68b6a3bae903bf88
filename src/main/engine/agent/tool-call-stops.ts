/**
 * The tool calls of a run that can be stopped one at a time, by the model's call id: the host
 * stops one (a person pressed Stop on its card) and the rest of the run goes on; the model reads
 * the stopped call's error envelope and decides what to do next.
 */
export class ToolCallStops {
  private readonly running = new Map<string, AbortController>();

  /** A call starts: its own signal, aborted by `stop(toolCallId)`. */
  begin(toolCallId: string): AbortSignal {
    const controller = new AbortController();
    this.running.set(toolCallId, controller);
    return controller.signal;
  }

  /** The call has its envelope: it can no longer be stopped. */
  end(toolCallId: string): void {
    this.running.delete(toolCallId);
  }

  /** Whether the call is running (and so can be stopped). */
  has(toolCallId: string): boolean {
    return this.running.has(toolCallId);
  }

  /** Stop one running call; false when it is not running (finished, or never started). */
  stop(toolCallId: string, reason = "stopped by the person"): boolean {
    const controller = this.running.get(toolCallId);
    if (!controller) return false;
    this.running.delete(toolCallId);
    controller.abort(new Error(reason));
    return true;
  }
}
