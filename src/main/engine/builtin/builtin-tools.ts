import type { AnyTool } from "../tools/contract.ts";

/** The locked tools this build ships, in the builtin layer. */
export function builtinTools(): AnyTool[] {
  return [];
}
