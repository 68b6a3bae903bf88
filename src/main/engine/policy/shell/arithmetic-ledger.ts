import { variableEffect } from "./sensitive-variables.ts";
import type { SortKey } from "./sort-key.ts";

/**
 * Bash evaluates the *value* of a variable used in arithmetic (`$((x))`, `[[ $x -eq 1 ]]`,
 * `let x`, an array subscript …) as an arithmetic expression in turn, and a value such as
 * `a[$(cmd)]` runs `cmd` while doing so. The ledger records every variable arithmetic reads and
 * every way the command sets variables; a read is harmless only when nothing in the command
 * ever sets that variable to anything but a plain number (variables it never sets come from the
 * environment Lathe starts bash with, which the command cannot choose).
 */

/** What an arithmetic context reports while its operands are checked. */
export interface ArithmeticSink {
  /** A variable whose value bash evaluates as arithmetic here. */
  reads(name: string): void;
  /** An operand that is never provably harmless (a substitution, quotes, a positional parameter …). */
  unsafe(what: string): void;
  /** A variable this arithmetic sets to a number (`i=0`, `i++`). */
  setsNumber(name: string): void;
}

interface Use {
  key: SortKey;
  name: string;
  where: string;
}

const EXPLAIN = "bash evaluates such a value as arithmetic in turn, and a value like a[$(cmd)] runs cmd";

export class ArithmeticLedger {
  /** Variables set to something other than a plain number, with how (for the reason). */
  readonly #unsafeSets = new Map<string, string>();
  readonly #uses: Use[] = [];
  readonly #unsafe: { key: SortKey; reason: string }[] = [];
  /** Variables arithmetic sets to a number (`((PATH=1))`, `let HOME=0`), where. */
  readonly #numberSets: { key: SortKey; name: string; where: string }[] = [];

  /** A variable set by the command: `how` describes it when the value may not be a plain number. */
  sets(name: string, how: string | undefined): void {
    if (how !== undefined && !this.#unsafeSets.has(name)) this.#unsafeSets.set(name, how);
  }

  /** A sink for one arithmetic context; `where` names it in reasons (`the arithmetic "$((x))"`). */
  sink(key: SortKey, where: string): ArithmeticSink {
    return {
      reads: (name) => this.#uses.push({ key, name, where }),
      unsafe: (what) =>
        this.#unsafe.push({
          key,
          reason: `${where} contains ${what}; bash evaluates that as arithmetic when the command runs, where a value like a[$(cmd)] runs cmd, so what it does cannot be seen in advance`,
        }),
      setsNumber: (name) => this.#numberSets.push({ key, name, where }),
    };
  }

  /**
   * The reasons, once every assignment of the command is known. A number is a value too: bash
   * looks commands up in `PATH` set to `1` by `((PATH=1))`, the workspace folder 1.
   */
  reasons(): { key: SortKey; reason: string }[] {
    const out = [...this.#unsafe];
    for (const set of this.#numberSets) {
      const effect = variableEffect(set.name, { text: "a number", literal: false });
      if (effect?.kind === "opaque") out.push({ key: set.key, reason: `${set.where}: ${effect.reason}` });
    }
    for (const use of this.#uses) {
      const how = this.#unsafeSets.get(use.name);
      if (how === undefined) continue;
      out.push({
        key: use.key,
        reason: `${use.where} reads the variable "${use.name}", which this command sets to something other than a plain number (${how}); ${EXPLAIN}`,
      });
    }
    return out;
  }
}
