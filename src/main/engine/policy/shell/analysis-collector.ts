import type { ShellAnalysis, ShellRedirection, SimpleCommand } from "./shell-analysis.ts";

/**
 * Where something sits in the source: positions, one more for every nested source (a decoded
 * backtick script, an `sh -c` string) at the place that holds it. Compared lexicographically,
 * keys give source order across nested sources.
 */
export type SortKey = readonly number[];

interface Entry<T> {
  key: SortKey;
  seq: number;
  value: T;
}

interface CommandEntry extends Entry<SimpleCommand> {
  /** Whether the name was written literally (a dynamic name cannot call a definition we know). */
  literal: boolean;
}

/** The most opaque reasons reported; the rest are counted in one last line. */
const MAX_REASONS = 100;

const DIRECTORY_CHANGERS = new Set(["cd", "pushd", "popd"]);

function compareKeys(a: SortKey, b: SortKey): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const diff = (a[i] as number) - (b[i] as number);
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}

function compareEntries(a: Entry<unknown>, b: Entry<unknown>): number {
  return compareKeys(a.key, b.key) || a.seq - b.seq;
}

/** Entries in source order (the walk mostly finds them in order already, so check first). */
function sorted<E extends Entry<unknown>>(entries: E[]): E[] {
  for (let i = 1; i < entries.length; i++) {
    if (compareEntries(entries[i - 1] as E, entries[i] as E) > 0) return entries.sort(compareEntries);
  }
  return entries;
}

/** Gathers what the walk finds and puts it in source order. */
export class AnalysisCollector {
  readonly #commands: CommandEntry[] = [];
  readonly #redirections: Entry<ShellRedirection>[] = [];
  readonly #opaque: Entry<string>[] = [];
  readonly #defined = new Map<string, "function" | "alias">();
  #seq = 0;

  addCommand(key: SortKey, command: SimpleCommand, nameIsLiteral: boolean): void {
    this.#commands.push({ key, seq: this.#seq++, value: command, literal: nameIsLiteral });
  }

  addRedirection(key: SortKey, redirection: ShellRedirection): void {
    this.#redirections.push({ key, seq: this.#seq++, value: redirection });
  }

  addOpaque(key: SortKey, reason: string): void {
    this.#opaque.push({ key, seq: this.#seq++, value: reason });
  }

  /** A function or alias defined in the source; calling it runs its body, not a program. */
  define(name: string, kind: "function" | "alias"): void {
    if (!this.#defined.has(name)) this.#defined.set(name, kind);
  }

  result(): ShellAnalysis {
    const commands = sorted(this.#commands);
    const redirections = sorted(this.#redirections);
    this.#flagDefinedNames(commands);
    this.#flagDirectoryChanges(commands, redirections);
    const reasons: string[] = [];
    const seen = new Set<string>();
    for (const { value } of sorted(this.#opaque)) {
      if (seen.has(value)) continue;
      seen.add(value);
      reasons.push(value);
    }
    const opaque = reasons.slice(0, MAX_REASONS);
    if (reasons.length > MAX_REASONS)
      opaque.push(`and ${reasons.length - MAX_REASONS} more reasons like these`);
    return {
      commands: commands.map((entry) => entry.value),
      redirections: redirections.map((entry) => entry.value),
      opaque,
    };
  }

  #flagDefinedNames(commands: CommandEntry[]): void {
    if (this.#defined.size === 0) return;
    for (const { key, value, literal } of commands) {
      const kind = this.#defined.get(value.name);
      if (kind === undefined || !literal) continue;
      this.addOpaque(
        key,
        `"${value.name}" is defined as ${kind === "function" ? "a function" : "an alias"} in this command, so calling it runs that definition rather than a program named "${value.name}"`,
      );
    }
    if (this.#defined.has("command_not_found_handle")) {
      this.addOpaque(
        [],
        `the function "command_not_found_handle" runs in place of every command that is not found`,
      );
    }
  }

  /** After `cd`, a relative redirection target no longer names a file Lathe can resolve. */
  #flagDirectoryChanges(commands: CommandEntry[], redirections: Entry<ShellRedirection>[]): void {
    if (redirections.length === 0) return;
    const firstChange = commands.find((entry) => entry.literal && DIRECTORY_CHANGERS.has(entry.value.name));
    if (firstChange === undefined) return;
    for (const { key, value } of redirections) {
      if (!value.target.literal || value.target.text.startsWith("/")) continue;
      if (compareKeys(key, firstChange.key) < 0) continue;
      this.addOpaque(
        key,
        `the command changes directory with "${firstChange.value.name}" before redirecting to the relative path "${value.target.text}", so which file that is cannot be resolved in advance`,
      );
    }
  }
}
