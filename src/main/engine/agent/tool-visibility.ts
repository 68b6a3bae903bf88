import picomatch from "picomatch";

const INHERITED = ", and a task may use only the tools of the agent that started it";

/**
 * Which tools an agent may see and call: those matching an `allow` pattern and no `deny`
 * pattern (deny wins). Patterns are tool ids or globs over them (`web_*`, `*`). A task's agent
 * also sees only what the agent that started it sees: a tool hidden from a parent stays hidden.
 */
export class ToolVisibility {
  private readonly allow: (id: string) => boolean;
  private readonly deny: (id: string) => boolean;
  private readonly parent: ToolVisibility | undefined;
  readonly agentId: string;

  constructor(
    agentId: string,
    tools: { allow: readonly string[]; deny: readonly string[] },
    parent?: ToolVisibility,
  ) {
    this.agentId = agentId;
    this.allow = tools.allow.length > 0 ? picomatch([...tools.allow]) : () => false;
    this.deny = tools.deny.length > 0 ? picomatch([...tools.deny]) : () => false;
    this.parent = parent;
  }

  visible(toolId: string): boolean {
    return this.allow(toolId) && !this.deny(toolId) && (this.parent?.visible(toolId) ?? true);
  }

  /** Why a tool is hidden, for the refusal the model reads. */
  reason(toolId: string): string {
    if (this.parent && !this.parent.visible(toolId)) {
      const above = this.parent.reason(toolId);
      return above.endsWith(INHERITED) ? above : `${above}${INHERITED}`;
    }
    return this.deny(toolId)
      ? `agent "${this.agentId}" denies it in its manifest`
      : `agent "${this.agentId}" does not allow it in its manifest`;
  }
}
