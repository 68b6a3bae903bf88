import {
  forEachChild,
  parse,
  type Assignment,
  type Command,
  type CommandExpansionPart,
  type ArithmeticCommandExpansion,
  type ParsedScript,
  type ProcessSubstitutionPart,
  type Redirect,
  type SyntaxNode,
  type Word,
} from "unbash";
import { AnalysisCollector, type SortKey } from "./analysis-collector.ts";
import {
  assignmentOutcomes,
  isWrapper,
  unwrapCommand,
  type ArgvItem,
  type WrapperOutcome,
} from "./command-wrappers.ts";
import { nestingDepth } from "./nesting-depth.ts";
import { shown } from "./shown-text.ts";
import { commandNameReason, fullwidthReason, hiddenCharacterReasons } from "./suspicious-text.ts";
import {
  assignedValue,
  assignmentValue,
  describeCause,
  unquotedText,
  wordValue,
  type DynamicCause,
} from "./word-value.ts";

/** A word of a command line. */
export interface ShellWord {
  /** The value after quote removal when literal; the source slice when it expands at run time. */
  text: string;
  literal: boolean;
}

/** One program (or builtin) that the command runs. */
export interface SimpleCommand {
  /** argv[0] after quote/escape removal (`\curl`, `c""url`, `'curl'` → "curl"); a path stays a path. */
  name: string;
  /** argv[1..] */
  args: ShellWord[];
  /** The source slice of this simple command (for messages and rule matching). */
  source: string;
  /** Wrappers unwrapped to reach it, outermost first (e.g. ["sudo", "env"], ["find -exec"], ["sh -c"]). */
  via: string[];
}

/** A file the command opens through a redirection. */
export interface ShellRedirection {
  access: "read" | "write";
  target: ShellWord;
  operator: string;
  source: string;
}

/** Everything a bash command would run and open, and why it cannot be fully seen. */
export interface ShellAnalysis {
  /** EVERY simple command anywhere in the source, in source order. */
  commands: SimpleCommand[];
  /** Every file redirection target (not here-docs, here-strings or fd duplications). */
  redirections: ShellRedirection[];
  /** Human-readable reasons the command cannot be fully seen through; empty when fully visible. */
  opaque: string[];
}

/** Deeper nesting than this is refused before parsing (the parser would re-scan it for seconds). */
const MAX_NESTING = 64;
/** How many levels of shell code inside shell code (`sh -c "sh -c '…'"`) are analysed. */
const MAX_CODE_DEPTH = 8;
/** Wall-clock budget for one analysis, so a hostile megabyte cannot stall the caller. */
const TIME_BUDGET_MS = 800;
/** Wrappers unwrapped for one command line (`sudo env nice sh -c …`). */
const MAX_UNWRAP = 64;

/** One source being walked: the root command, a decoded backtick script, or an `sh -c` string. */
interface Context {
  src: string;
  /** Sort key of the place holding this source. */
  prefix: SortKey;
  via: readonly string[];
  /** Levels of shell code inside shell code. */
  depth: number;
}

interface PendingCommand {
  argv: ArgvItem[];
  via: readonly string[];
  source: string;
}

type Substitution = CommandExpansionPart | ProcessSubstitutionPart | ArithmeticCommandExpansion;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function keyAt(context: Context, pos: number): SortKey {
  return [...context.prefix, pos];
}

/** Walks every node of a command (and of the shell code it runs) with an explicit stack. */
class ShellWalker {
  readonly #collector: AnalysisCollector;
  readonly #deadline: number;
  /** The explicit stack: nodes still to visit and the context each belongs to. */
  readonly #nodes: SyntaxNode[] = [];
  readonly #contexts: Context[] = [];
  #current: Context | undefined;
  /**
   * Work held back until the current level is done: substitution scripts and shell code. Every
   * command outside substitutions is found before any inside them, so padding a command with
   * costly substitutions cannot hide a plain command after them from a time-limited walk.
   */
  readonly #deferred: (() => void)[] = [];
  #deferredNext = 0;
  readonly #pushChild = (child: SyntaxNode): void => {
    this.#nodes.push(child);
    this.#contexts.push(this.#current as Context);
  };

  constructor(collector: AnalysisCollector, deadline: number) {
    this.#collector = collector;
    this.#deadline = deadline;
  }

  run(source: string): void {
    this.#addSource(source, [], [], 0);
    let steps = 0;
    for (;;) {
      if ((++steps & 63) === 0 && performance.now() > this.#deadline) {
        this.#collector.addOpaque(
          [],
          `analysing the command took longer than ${TIME_BUDGET_MS} ms, so parts of it were not examined`,
        );
        return;
      }
      const node = this.#nodes.pop();
      if (node !== undefined) {
        this.#visit(node, this.#contexts.pop() as Context);
        continue;
      }
      const deferred = this.#deferred[this.#deferredNext];
      if (deferred === undefined) return;
      this.#deferred[this.#deferredNext++] = noop;
      deferred();
    }
  }

  #opaque(key: SortKey, reason: string): void {
    this.#collector.addOpaque(key, reason);
  }

  /** Queue a source (the command, or shell code it runs) for walking. */
  #addSource(code: string, prefix: SortKey, via: readonly string[], depth: number): void {
    if (depth > MAX_CODE_DEPTH) {
      this.#opaque(
        prefix,
        `the command nests shell code more than ${MAX_CODE_DEPTH} levels deep (such as sh -c inside sh -c), and the innermost level was not analysed`,
      );
      return;
    }
    const subject = depth === 0 ? "the command" : `the shell code that "${via[via.length - 1] ?? ""}" runs`;
    for (const reason of hiddenCharacterReasons(code, subject)) this.#opaque(prefix, reason);
    if (nestingDepth(code, MAX_NESTING) > MAX_NESTING) {
      this.#opaque(
        prefix,
        `the command nests substitutions, subshells or quotes more than ${MAX_NESTING} levels deep, which Lathe does not analyse`,
      );
      return;
    }
    this.#push(parse(code), { src: code, prefix, via, depth });
  }

  #push(node: SyntaxNode, context: Context): void {
    this.#nodes.push(node);
    this.#contexts.push(context);
  }

  #visit(node: SyntaxNode, context: Context): void {
    switch (node.type) {
      case "Script":
        this.#script(node, context);
        break;
      case "Command":
        this.#command(node, context);
        break;
      case "Function":
        this.#collector.define(node.name.value, "function");
        break;
      case "Assignment":
        this.#assignment(node, context);
        break;
      case "Redirect":
        this.#redirect(node, context);
        break;
      case "Word":
        this.#word(node, context);
        break;
      case "CommandExpansion":
      case "ProcessSubstitution":
      case "ArithmeticCommandExpansion":
        this.#substitution(node, context);
        return;
      default:
        break;
    }
    this.#pushChildren(node, context);
  }

  /** Push a node's children so that they are visited in source order. */
  #pushChildren(node: SyntaxNode, context: Context): void {
    const nodes = this.#nodes;
    const start = nodes.length;
    this.#current = context;
    forEachChild(node, this.#pushChild);
    for (let low = start, high = nodes.length - 1; low < high; low++, high--) {
      const swap = nodes[low] as SyntaxNode;
      nodes[low] = nodes[high] as SyntaxNode;
      nodes[high] = swap;
    }
  }

  #script(script: ParsedScript, context: Context): void {
    for (const error of script.errors ?? []) {
      this.#opaque(
        keyAt(context, error.pos),
        `the shell could not parse the command (${error.message} at character ${error.pos}), so it cannot be fully seen`,
      );
    }
  }

  /**
   * Walk a substitution's script after the current level. A script with its own decoded source
   * (escaped backticks) starts a new context.
   */
  #substitution(node: Substitution, context: Context): void {
    this.#deferred.push(() => {
      const script = node.script;
      if (script === undefined) {
        this.#opaque(keyAt(context, node.pos), `the substitution ${shown(node.text)} could not be parsed`);
      } else if (script.source === undefined || script.source === context.src) {
        this.#push(script, context);
      } else {
        this.#push(script, { ...context, src: script.source, prefix: keyAt(context, node.pos) });
      }
    });
  }

  #word(word: Word, context: Context): void {
    const reason = fullwidthReason(unquotedText(word));
    if (reason !== undefined) this.#opaque(keyAt(context, word.pos), reason);
  }

  #assignment(assignment: Assignment, context: Context): void {
    const value = assignedValue(assignment);
    const outcomes = assignmentOutcomes(assignment.name, value.word, assignment.pos);
    this.#applyOutcomes(outcomes, keyAt(context, assignment.pos), context.via, context, []);
  }

  #redirect(redirect: Redirect, context: Context): void {
    const target = redirect.target;
    if (target === undefined) return;
    const parts = target.parts;
    // `< <(cmd)` reads a pipe, not a file; the commands inside are walked like any others.
    if (parts?.length === 1 && parts[0]?.type === "ProcessSubstitution") return;
    const { word, cause } = wordValue(target);
    const operator = redirect.operator;
    if ((operator === ">&" || operator === "<&") && word.literal && /^(\d+-?|-)$/.test(word.text)) return;
    const key = keyAt(context, redirect.pos);
    this.#collector.addRedirection(key, {
      access: operator === "<" || operator === "<&" ? "read" : "write",
      target: word,
      operator,
      source: context.src.slice(redirect.pos, redirect.end),
    });
    if (!word.literal) {
      this.#opaque(
        key,
        `the redirection target ${shown(word.text)} is only known when the shell runs (${describeCauseOf(cause)})`,
      );
    } else if (/^\/dev\/(tcp|udp)\//.test(word.text)) {
      this.#opaque(key, `the redirection to ${shown(word.text)} opens a network connection`);
    }
  }

  #command(command: Command, context: Context): void {
    const name = command.name;
    if (name === undefined) return;
    const head = wordItem(name);
    const source = context.src.slice(command.pos, command.end);
    if (head.word.literal && !isWrapper(head.word.text)) {
      // The common case: an ordinary program that runs nothing else.
      const args: ShellWord[] = [];
      for (const item of command.suffix) {
        if (item.type === "Word") args.push(wordValue(item).word);
        else if (item.type === "Assignment") args.push(assignmentValue(item).word);
      }
      this.#report(head, args, source, context.via, keyAt(context, head.pos));
      return;
    }
    const argv: ArgvItem[] = [head];
    for (const item of command.suffix) {
      if (item.type === "Word") argv.push(wordItem(item));
      else if (item.type === "Assignment") {
        const { word, cause } = assignmentValue(item);
        argv.push({ word, pos: item.pos, end: item.end, cause });
      }
    }
    const queue: PendingCommand[] = [{ argv, via: context.via, source }];
    for (let unwrapped = 0; unwrapped < MAX_UNWRAP; unwrapped++) {
      const next = queue.shift();
      if (next === undefined) return;
      this.#unwrap(next, context, queue);
    }
    if (queue.length > 0) {
      this.#opaque(
        keyAt(context, command.pos),
        `the command wraps more than ${MAX_UNWRAP} commands inside each other, and the innermost were not analysed`,
      );
    }
  }

  /** Record one simple command; false when its name is only known at run time. */
  #report(head: ArgvItem, args: ShellWord[], source: string, via: readonly string[], key: SortKey): boolean {
    const name = head.word.text;
    this.#collector.addCommand(key, { name, args, source, via: [...via] }, head.word.literal);
    if (!head.word.literal) {
      this.#opaque(
        key,
        `the command name ${shown(name)} is only known when the shell runs (${describeCauseOf(head.cause)})`,
      );
      return false;
    }
    const suspicious = commandNameReason(name);
    if (suspicious !== undefined) this.#opaque(key, suspicious);
    return true;
  }

  /** Report one command line and queue what it runs in turn. */
  #unwrap(pending: PendingCommand, context: Context, queue: PendingCommand[]): void {
    const [head, ...rest] = pending.argv;
    if (head === undefined) return;
    const key = keyAt(context, head.pos);
    const args = rest.map((item) => item.word);
    if (!this.#report(head, args, pending.source, pending.via, key)) return;
    this.#applyOutcomes(
      unwrapCommand(head.word.text, rest),
      key,
      pending.via,
      context,
      queue,
      pending.source,
    );
  }

  #applyOutcomes(
    outcomes: readonly WrapperOutcome[],
    key: SortKey,
    via: readonly string[],
    context: Context,
    queue: PendingCommand[],
    parentSource = "",
  ): void {
    for (const outcome of outcomes) {
      switch (outcome.kind) {
        case "runs":
          queue.push({
            argv: outcome.argv,
            via: [...via, outcome.via],
            source: sliceOf(outcome.argv, context.src) || parentSource,
          });
          break;
        case "code": {
          const { code, pos } = outcome;
          const innerVia = [...via, outcome.via];
          this.#deferred.push(() => this.#addSource(code, keyAt(context, pos), innerVia, context.depth + 1));
          break;
        }
        case "opaque":
          this.#opaque(key, outcome.reason);
          break;
        case "defines":
          this.#collector.define(outcome.name, "alias");
          break;
      }
    }
  }
}

function noop(): void {}

function describeCauseOf(cause: DynamicCause | undefined): string {
  return cause === undefined ? "it is filled in at run time" : describeCause(cause);
}

function wordItem(word: Word): ArgvItem {
  const { word: value, cause } = wordValue(word);
  return { word: value, pos: word.pos, end: word.end, cause };
}

/** The source text spanning a command line's words (empty when they are synthetic). */
function sliceOf(argv: readonly ArgvItem[], src: string): string {
  const first = argv[0];
  if (first === undefined) return "";
  let end = first.end;
  for (const item of argv) end = Math.max(end, item.end);
  return src.slice(first.pos, end);
}

/**
 * See through a bash command before anything runs: every simple command it contains (through
 * pipelines, lists, groups, control flow, substitutions and wrappers such as sudo, env, xargs,
 * find -exec and sh -c), every file it redirects to, and every reason it cannot be fully seen.
 * Never throws; anything it cannot analyse is reported in `opaque`.
 */
export function analyzeShell(source: string): ShellAnalysis {
  const collector = new AnalysisCollector();
  try {
    new ShellWalker(collector, performance.now() + TIME_BUDGET_MS).run(source);
  } catch (error) {
    collector.addOpaque(
      [],
      `Lathe could not analyse the command (${errorMessage(error)}), so it cannot be fully seen`,
    );
  }
  return collector.result();
}
