import type { ParsedArgs } from "./command-options.ts";
import type { ShellWord } from "./shell-types.ts";

/** What a simple command does besides running: files it writes, and what makes it opaque. */
export interface CommandEffects {
  /** Paths the command writes (relative to the folder it runs in, or absolute). */
  writes: ShellWord[];
  /** Reasons a person must look at it: it runs code or writes files that cannot be named first. */
  unclear: string[];
}

/** The effects of one program, judged from its name (without folder) and arguments. */
export type EffectsOf = (program: string, args: readonly ShellWord[]) => CommandEffects;

export function effects(writes: readonly ShellWord[] = [], unclear: readonly string[] = []): CommandEffects {
  return { writes: [...writes], unclear: [...unclear] };
}

/** Effects that need a person, for one reason. */
export function unclear(reason: string): CommandEffects {
  return { writes: [], unclear: [reason] };
}

/** Words the options could not be read with (a disguised writer option), as reasons. */
export function withUnknown(parsed: ParsedArgs, result: CommandEffects): CommandEffects {
  return parsed.unknown.length === 0
    ? result
    : { writes: result.writes, unclear: [...parsed.unknown, ...result.unclear] };
}

export function word(text: string): ShellWord {
  return { text, literal: true };
}

/** `dir/file` → `dir`, `file` → `.`, keeping the word's literalness. */
export function dirOf(target: ShellWord): ShellWord {
  const slash = target.text.lastIndexOf("/");
  if (slash < 0) return { text: ".", literal: target.literal };
  return { text: slash === 0 ? "/" : target.text.slice(0, slash), literal: target.literal };
}

/** A path joined onto a folder without normalising (`out/../x` must stay for the kernel's reading). */
export function joinPath(dir: ShellWord, name: string): ShellWord {
  if (name.startsWith("/")) return { text: name, literal: dir.literal };
  if (dir.text === ".") return { text: name, literal: dir.literal };
  return { text: `${dir.text.replace(/\/+$/, "")}/${name}`, literal: dir.literal };
}

export function baseName(text: string): string {
  const trimmed = text.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}
