import path from "node:path";
import { ARCHIVE_EFFECTS } from "./archive-effects.ts";
import { awk } from "./awk-effects.ts";
import { BUILD_TOOL_EFFECTS } from "./build-tool-effects.ts";
import { effects, type CommandEffects, type EffectsOf } from "./effect-kit.ts";
import { FILE_WRITERS } from "./file-writers.ts";
import { find } from "./find-effects.ts";
import { git } from "./git-effects.ts";
import { INTERPRETER_EFFECTS } from "./interpreter-effects.ts";
import { LINK_EFFECTS } from "./link-effects.ts";
import { NETWORK_TOOL_EFFECTS } from "./network-tool-effects.ts";
import { PROCESS_EFFECTS } from "./process-effects.ts";
import { READER_EFFECTS } from "./reader-effects.ts";
import { sed } from "./sed-effects.ts";
import type { SimpleCommand } from "./shell-types.ts";
import { SYSTEM_EFFECTS } from "./system-effects.ts";

/** Every program whose arguments Lathe reads for writes and hidden behaviour, by file name. */
const EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ...FILE_WRITERS,
  ...LINK_EFFECTS,
  ...ARCHIVE_EFFECTS,
  ...NETWORK_TOOL_EFFECTS,
  ...INTERPRETER_EFFECTS,
  ...BUILD_TOOL_EFFECTS,
  ...PROCESS_EFFECTS,
  ...SYSTEM_EFFECTS,
  ...READER_EFFECTS,
  ["sed", sed],
  ["gsed", sed],
  ["awk", awk],
  ["gawk", awk],
  ["mawk", awk],
  ["nawk", awk],
  ["find", find],
  ["git", git],
]);

/**
 * The file effects and hidden behaviour of well-known commands, judged from their arguments:
 * writers (`cp`, `mv`, `rm`, `tee`, `sed -i`, `sort -o`, `tar -C`, `ln`, …) name the paths they
 * change so the capability check, the rules and the watchdog see them, and forms that run code
 * the parser cannot see (`git -c core.pager=…`, `sed e`, `awk system()`, `python3 -c`, a script
 * on standard input) or reach outside the call (`kill` of another process) are marked unclear.
 */
export function commandEffects(command: SimpleCommand): CommandEffects {
  const name = path.posix.basename(command.name);
  const effectsOf = EFFECTS.get(name);
  return effectsOf === undefined ? effects() : effectsOf(name, command.args);
}
