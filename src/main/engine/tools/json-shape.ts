/**
 * How deep a tool's result may nest. Everything after a call serializes the result (truncation,
 * the audit row, the envelope sent to the model and the UI), and a serializer that recurses runs
 * out of stack somewhere past a few thousand levels; real results stay far below this.
 */
export const MAX_RESULT_DEPTH = 100;

/**
 * How deep a tool's schemas may nest, in JSON levels (a property's schema is two below its
 * object's: `properties`, then its name), an MCP server's or a plugin's. Real schemas stay far
 * below it; past a few thousand levels every walk of a schema (its pin's hash, the meta-schema
 * check, compiling it) runs out of stack, which took down every command, not just that tool.
 */
export const MAX_SCHEMA_DEPTH = 100;

/** How many values one result may hold (a shared sub-object counts each time it appears). */
const MAX_RESULT_NODES = 5_000_000;

interface Frame {
  readonly value: object;
  readonly children: unknown[];
  next: number;
}

function childrenOf(value: object): unknown[] {
  return Array.isArray(value) ? value : Object.values(value);
}

/**
 * Why a value cannot be sent on as JSON data — nested deeper than `maxDepth`, a cycle, a
 * BigInt, or more than MAX_RESULT_NODES values — or undefined when it can. Iterative, so a
 * hostile depth cannot overflow the stack here. Objects with `toJSON` (dates, buffers) are
 * leaves, as JSON.stringify treats them.
 */
export function jsonShapeProblem(value: unknown, maxDepth: number = MAX_RESULT_DEPTH): string | undefined {
  if (typeof value === "bigint") return "is a BigInt, which JSON cannot hold";
  if (typeof value !== "object" || value === null) return undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return undefined;
  const ancestors = new Set<object>();
  const stack: Frame[] = [];
  let nodes = 0;
  const enter = (child: object): string | undefined => {
    if (ancestors.has(child)) return "contains a cycle (an object that contains itself)";
    if (stack.length >= maxDepth) return `is nested deeper than ${maxDepth} levels`;
    ancestors.add(child);
    stack.push({ value: child, children: childrenOf(child), next: 0 });
    return undefined;
  };
  const first = enter(value);
  if (first !== undefined) return first;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next >= frame.children.length) {
      stack.pop();
      ancestors.delete(frame.value);
      continue;
    }
    const child = frame.children[frame.next++];
    if (++nodes > MAX_RESULT_NODES) return `holds more than ${MAX_RESULT_NODES} values`;
    if (typeof child === "bigint") return "contains a BigInt, which JSON cannot hold";
    if (typeof child !== "object" || child === null) continue;
    if (typeof (child as { toJSON?: unknown }).toJSON === "function") continue;
    const problem = enter(child);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** What the model is told when a tool's result cannot be passed on (see jsonShapeProblem). */
export function unusableResultMessage(toolId: string, problem: string): string {
  return `${toolId} returned a result that ${problem}, so it cannot be passed on. This is a fault of the tool, not of the call; do not retry it, tell the user.`;
}
