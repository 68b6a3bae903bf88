import { ArithmeticLedger } from "./arithmetic-ledger.ts";
import { trackDirectories, type DirectoryEvent } from "./directory-tracking.ts";
import type { ShellAnalysis, ShellRedirection, SimpleCommand } from "./shell-types.ts";
import { compareKeys, type SortKey } from "./sort-key.ts";
import type { DirectoryChange } from "./wrapper-outcome.ts";

export type { SortKey } from "./sort-key.ts";

interface Entry<T> {
  key: SortKey;
  seq: number;
  value: T;
}

interface CommandEntry extends Entry<SimpleCommand> {
  /** Whether the name was written literally (a dynamic name cannot call a definition we know). */
  literal: boolean;
  /** A folder a wrapper runs it in (`env -C dir cmd`). */
  local?: DirectoryChange | undefined;
}

interface ChangeEntry extends Entry<DirectoryChange> {
  inLoop: boolean;
  what: string;
}

/** The most opaque reasons reported; the rest are counted in one last line. */
const MAX_REASONS = 100;

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
  readonly #changes: ChangeEntry[] = [];
  readonly #background: Entry<string>[] = [];
  readonly #defined = new Map<string, "function" | "alias">();
  /** Variables arithmetic reads, and how the command sets variables (see arithmetic-ledger.ts). */
  readonly arithmetic = new ArithmeticLedger();
  #seq = 0;

  addCommand(key: SortKey, command: SimpleCommand, nameIsLiteral: boolean, local?: DirectoryChange): void {
    this.#commands.push({ key, seq: this.#seq++, value: command, literal: nameIsLiteral, local });
  }

  addRedirection(key: SortKey, redirection: ShellRedirection): void {
    this.#redirections.push({ key, seq: this.#seq++, value: redirection });
  }

  addOpaque(key: SortKey, reason: string): void {
    this.#opaque.push({ key, seq: this.#seq++, value: reason });
  }

  /** `cd`, `pushd`, `popd`: later commands may run in another folder. */
  addDirectoryChange(key: SortKey, change: DirectoryChange, what: string, inLoop: boolean): void {
    this.#changes.push({ key, seq: this.#seq++, value: change, what, inLoop });
  }

  addBackground(key: SortKey, source: string): void {
    this.#background.push({ key, seq: this.#seq++, value: source });
  }

  /** A function or alias defined in the source; calling it runs its body, not a program. */
  define(name: string, kind: "function" | "alias"): void {
    if (!this.#defined.has(name)) this.#defined.set(name, kind);
  }

  result(): ShellAnalysis {
    const commands = sorted(this.#commands);
    const redirections = sorted(this.#redirections);
    this.#flagDefinedNames(commands);
    this.#trackDirectories(commands, redirections);
    for (const { key, reason } of this.arithmetic.reasons()) this.addOpaque(key, reason);
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
    const analysis: ShellAnalysis = {
      commands: commands.map((entry) => entry.value),
      redirections: redirections.map((entry) => entry.value),
      opaque,
    };
    if (this.#background.length > 0) analysis.background = sorted(this.#background).map((e) => e.value);
    return analysis;
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

  /** Give commands and redirections the folders they may run in, in source order. */
  #trackDirectories(commands: CommandEntry[], redirections: Entry<ShellRedirection>[]): void {
    const local = commands.some((c) => c.local !== undefined);
    if (this.#changes.length === 0 && !local) return;
    type Event = { entry: Entry<unknown>; event: DirectoryEvent };
    const events: Event[] = [];
    for (const change of this.#changes) {
      events.push({
        entry: change,
        event: { kind: "change", change: change.value, inLoop: change.inLoop, what: change.what },
      });
    }
    for (const command of commands) {
      events.push({
        entry: command,
        event: {
          kind: "user",
          local: command.local,
          assign: (runsIn) => {
            if (runsIn !== undefined) command.value.runsIn = runsIn;
          },
        },
      });
    }
    for (const redirection of redirections) {
      events.push({
        entry: redirection,
        event: {
          kind: "user",
          assign: (runsIn) => {
            if (runsIn !== undefined) redirection.value.runsIn = runsIn;
          },
        },
      });
    }
    events.sort((a, b) => compareEntries(a.entry, b.entry));
    trackDirectories(events.map((e) => e.event));
  }
}
