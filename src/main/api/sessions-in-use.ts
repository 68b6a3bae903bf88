/**
 * The sessions with a run going on, shared by every UI of a host (one run per session at a time).
 * It tells `onChange` when a run starts or ends in one, so every UI's session list can follow.
 */
export class SessionsInUse extends Set<string> {
  private readonly onChange: () => void;

  constructor(onChange: () => void) {
    super();
    this.onChange = onChange;
  }

  override add(sessionId: string): this {
    const added = !this.has(sessionId);
    super.add(sessionId);
    if (added) this.onChange();
    return this;
  }

  override delete(sessionId: string): boolean {
    const deleted = super.delete(sessionId);
    if (deleted) this.onChange();
    return deleted;
  }
}
