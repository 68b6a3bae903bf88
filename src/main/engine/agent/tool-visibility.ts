import picomatch from "picomatch";

/**
 * Which tools an agent may see and call: those matching an `allow` pattern and no `deny`
 * pattern (deny wins). Patterns are tool ids or globs over them (`web_*`, `*`).
 */
export class ToolVisibility {
  private readonly allow: (id: string) => boolean;
  private readonly deny: (id: string) => boolean;
  readonly agentId: string;

  constructor(agentId: string, tools: { allow: readonly string[]; deny: readonly string[] }) {
    this.agentId = agentId;
    this.allow = tools.allow.length > 0 ? picomatch([...tools.allow]) : () => false;
    this.deny = tools.deny.length > 0 ? picomatch([...tools.deny]) : () => false;
  }

  visible(toolId: string): boolean {
    return this.allow(toolId) && !this.deny(toolId);
  }

  /** Why a tool is hidden, for the refusal the model reads. */
  reason(toolId: string): string {
    return this.deny(toolId)
      ? `agent "${this.agentId}" denies it in its manifest`
      : `agent "${this.agentId}" does not allow it in its manifest`;
  }
}
