import type { AnyTool } from "../tools/contract.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { readTool } from "./read.ts";
import { writeTool } from "./write.ts";

/** The locked tools this build ships, in the builtin layer. */
export function builtinTools(): AnyTool[] {
  return [readTool, writeTool, editTool, globTool, grepTool, bashTool];
}
