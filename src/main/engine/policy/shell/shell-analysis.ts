import {
  forEachChild,
  parse,
  type ArithmeticCommand,
  type ArithmeticExpansionPart,
  type ArithmeticFor,
  type Assignment,
  type Command,
  type CommandExpansionPart,
  type ArithmeticCommandExpansion,
  type For,
  type ParameterExpansionPart,
  type ParsedScript,
  type ProcessSubstitutionPart,
  type Redirect,
  type Select,
  type SyntaxNode,
  type TestCommand,
  type Word,
} from "unbash";
import { AnalysisCollector, type SortKey } from "./analysis-collector.ts";
import type { ArithmeticSink } from "./arithmetic-ledger.ts";
import {
  checkArithmeticText,
  checkExpression,
  checkSubscript,
  checkTest,
  isNumberValue,
} from "./arithmetic-values.ts";
import { expandBraces } from "./brace-expansion.ts";
import { assignmentOutcomes, isWrapper, unwrapCommand, type WrapperOutcome } from "./command-wrappers.ts";
import { nestingDepth } from "./nesting-depth.ts";
import { checkParameterExpansion } from "./parameter-expansion.ts";
import type { ArgvItem, ShellAnalysis, ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";
import { commandNameReason, fullwidthReason, hiddenCharacterReasons } from "./suspicious-text.ts";
import {
  assignedValue,
  assignmentValue,
  describeCause,
  hasAssignmentTilde,
  unquotedText,
  wordValue,
  type DynamicCause,
} from "./word-value.ts";
import type { DirectoryChange } from "./wrapper-outcome.ts";
import { errorMessage } from "../../errors/error-message.ts";

export type { RunsIn, ShellAnalysis, ShellWord, SimpleCommand } from "./shell-types.ts";

/** Deeper nesting than this is refused before parsing (the parser would re-scan it for seconds). */
const MAX_NESTING = 64;
/** How many levels of shell code inside shell code (`sh -c "sh -c '…'"`) are analysed. */
const MAX_CODE_DEPTH = 8;
/**
 * Nodes and held-back pieces of work one analysis visits at most. A count, not a clock, so the
 * same command gets the same verdict on a quiet machine and a loaded one; about half a second of
 * walking on a quiet machine (a hostile megabyte of substitutions needs 850,000).
 */
const MAX_WALK_STEPS = 300_000;
/** Wall-clock backstop for one walk, for a machine so slow that the count is not bound enough. */
const TIME_BUDGET_MS = 3_000;
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
  /** Inside a loop or function body: it may run again after later commands. */
  loop: boolean;
  /** The folder a wrapper runs this code in (`env -C dir sh -c '…'`). */
  local?: DirectoryChange | undefined;
}

interface PendingCommand {
  argv: ArgvItem[];
  via: readonly string[];
  source: string;
  local?: DirectoryChange | undefined;
}

type Substitution = CommandExpansionPart | ProcessSubstitutionPart | ArithmeticCommandExpansion;

const LOOPS = new Set(["For", "Select", "While", "ArithmeticFor", "Function"]);

function keyAt(context: Context, pos: number): SortKey {
  return [...context.prefix, pos];
}

/** Two folder changes on one command (`env -C a env -C b cmd`): followed no further. */
function combine(
  outer: DirectoryChange | undefined,
  inner: DirectoryChange | undefined,
): DirectoryChange | undefined {
  if (outer === undefined) return inner;
  if (inner === undefined) return outer;
  return {
    unknown:
      "the command changes folder twice over (a wrapper inside a wrapper), which Lathe does not follow",
  };
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
  /** `IFS=` assignments that only prefix a read (see #command). */
  readonly #readOnlyIfs = new WeakSet<Assignment>();
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
    this.#addSource(source, [], [], 0, false, undefined);
    let steps = 0;
    for (;;) {
      if (++steps > MAX_WALK_STEPS) {
        this.#collector.addOpaque(
          [],
          `the command has more than ${MAX_WALK_STEPS} parts to examine, so parts of it were not examined`,
        );
        return;
      }
      if ((steps & 63) === 0 && performance.now() > this.#deadline) {
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
  #addSource(
    code: string,
    prefix: SortKey,
    via: readonly string[],
    depth: number,
    loop: boolean,
    local: DirectoryChange | undefined,
  ): void {
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
    this.#push(parse(code), { src: code, prefix, via, depth, loop, local });
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
      case "Statement":
        if (node.background === true) {
          this.#collector.addBackground(keyAt(context, node.pos), context.src.slice(node.pos, node.end));
        }
        break;
      case "Coproc":
        this.#collector.addBackground(keyAt(context, node.pos), context.src.slice(node.pos, node.end));
        // `coproc NAME …` sets NAME to the coprocess's two file descriptors (numbers): `coproc
        // HOME { …; }` makes ~ and $HOME the folder named like the first.
        if (node.name !== undefined)
          this.#sets(
            node.name.value,
            { text: "its file descriptors", literal: false },
            undefined,
            keyAt(context, node.pos),
            node.pos,
            context,
          );
        break;
      case "Command":
        this.#command(node, context);
        break;
      case "Function":
        this.#collector.define(node.name.value, "function");
        this.#opaque(
          keyAt(context, node.pos),
          `the command defines the function "${node.name.value}", whose body runs whenever (and wherever) it is called, which Lathe does not follow`,
        );
        break;
      case "For":
      case "Select":
        this.#loopVariable(node, context);
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
      case "ArithmeticExpansion":
      case "ArithmeticCommand":
        this.#arithmetic(node, context);
        break;
      case "ArithmeticFor":
        this.#arithmeticFor(node, context);
        break;
      case "ParameterExpansion":
        this.#parameter(node, context);
        break;
      case "TestCommand":
        this.#test(node, context);
        break;
      case "CommandExpansion":
      case "ProcessSubstitution":
      case "ArithmeticCommandExpansion":
        this.#substitution(node, context);
        return;
      default:
        break;
    }
    this.#pushChildren(node, LOOPS.has(node.type) && !context.loop ? { ...context, loop: true } : context);
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

  /** A sink for the operands of one arithmetic context. */
  #sink(context: Context, pos: number, where: string): ArithmeticSink {
    return this.#collector.arithmetic.sink(keyAt(context, pos), where);
  }

  /** A variable the command sets: the ledger learns how, and a sensitive name is judged. */
  #sets(
    name: string,
    value: ShellWord,
    how: string | undefined,
    key: SortKey,
    pos: number,
    context: Context,
  ): void {
    this.#collector.arithmetic.sets(name, how);
    this.#applyOutcomes(assignmentOutcomes(name, value, pos), key, context.via, context, []);
  }

  #arithmetic(node: ArithmeticExpansionPart | ArithmeticCommand, context: Context): void {
    const text = node.type === "ArithmeticCommand" ? `((${node.body}))` : node.text;
    const sink = this.#sink(context, node.pos, `the arithmetic ${shown(text)}`);
    if (node.expression !== undefined) checkExpression(node.expression, sink);
    else if (
      node.type === "ArithmeticCommand"
        ? node.body.trim() !== ""
        : !/^\$\(\(\s*\)\)$|^\$\[\s*\]$/.test(node.text)
    )
      sink.unsafe("an expression Lathe could not parse");
  }

  #arithmeticFor(node: ArithmeticFor, context: Context): void {
    const sink = this.#sink(context, node.pos, `the loop header "for ((…))"`);
    for (const part of [node.initialize, node.test, node.update])
      if (part !== undefined) checkExpression(part, sink);
  }

  #parameter(part: ParameterExpansionPart, context: Context): void {
    const key = keyAt(context, part.pos);
    checkParameterExpansion(part, {
      arithmetic: this.#sink(context, part.pos, `the subscript or offset in ${shown(part.text)}`),
      opaque: (reason) => this.#opaque(key, reason),
      sets: (name, how) => this.#sets(name, { text: part.text, literal: false }, how, key, part.pos, context),
    });
  }

  #test(node: TestCommand, context: Context): void {
    const text = context.src.slice(node.pos, node.end);
    checkTest(node.expression, this.#sink(context, node.pos, `the test ${shown(text)}`));
  }

  /** `for x in …`: x is set to each word in turn. */
  #loopVariable(node: For | Select, context: Context): void {
    const name = node.name.value;
    const words = node.wordlist;
    const numbers =
      node.type === "For" &&
      words !== undefined &&
      words.every((w) => isNumberValue(w) || (expandBraces(w)?.every((x) => /^-?\d+$/.test(x)) ?? false));
    const key = keyAt(context, node.pos);
    const value: ShellWord = {
      text: `<each word of the ${node.type === "For" ? "for" : "select"} list>`,
      literal: false,
    };
    this.#sets(
      name,
      value,
      numbers ? undefined : `${node.type === "For" ? "for" : "select"} ${name} in …`,
      key,
      node.pos,
      context,
    );
  }

  #assignment(assignment: Assignment, context: Context): void {
    const key = keyAt(context, assignment.pos);
    const value = assignedValue(assignment);
    if (assignment.index !== undefined) {
      checkSubscript(
        assignment.index,
        this.#sink(context, assignment.pos, `the subscript in ${shown(assignment.text)}`),
      );
    }
    let number: boolean;
    if (assignment.value.type === "ArrayValue") {
      number = true;
      for (const element of assignment.value.elements) {
        const subscript = /^\[([^\]]*)\]\+?=/.exec(element.value);
        if (subscript !== null) {
          checkArithmeticText(
            subscript[1] as string,
            this.#sink(context, element.pos, `the subscript in ${shown(element.text)}`),
          );
          number &&=
            /^\[[^\]]*\]\+?=[+-]?\d*$/.test(element.value) &&
            element.parts?.every((p) => p.type === "Literal") !== false;
        } else number &&= isNumberValue(element);
      }
    } else number = isNumberValue(assignment.value);
    this.#collector.arithmetic.sets(assignment.name, number ? undefined : assignment.text);
    if (this.#readOnlyIfs.has(assignment)) return;
    const outcomes = assignmentOutcomes(assignment.name, value.word, assignment.pos);
    this.#applyOutcomes(outcomes, key, context.via, context, []);
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
      ...(context.local !== undefined
        ? {
            runsIn: { dirs: [], unknown: "the redirection is inside shell code that runs in another folder" },
          }
        : {}),
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

  /** The words of a command line, brace expansions expanded where they are literal. */
  #argv(command: Command): ArgvItem[] {
    const argv: ArgvItem[] = [];
    const words = command.name === undefined ? [] : [command.name];
    const add = (word: Word, argument: boolean): void => {
      const expanded = expandBraces(word);
      if (argument && expanded === undefined && hasAssignmentTilde(word)) {
        argv.push({
          word: { text: word.text, literal: false },
          pos: word.pos,
          end: word.end,
          cause: "tilde",
        });
      } else if (expanded === undefined) argv.push(wordItem(word));
      else
        for (const text of expanded)
          argv.push({ word: { text, literal: true }, pos: word.pos, end: word.end });
    };
    for (const word of words) add(word, false);
    for (const item of command.suffix) {
      if (item.type === "Word") add(item, true);
      else if (item.type === "Assignment") {
        const { word, cause } = assignmentValue(item);
        argv.push({ word, pos: item.pos, end: item.end, cause });
      }
    }
    return argv;
  }

  #command(command: Command, context: Context): void {
    if (command.name === undefined) return;
    // `IFS= read -r line`: IFS applies to that read alone, which only splits what it reads.
    if (command.name.parts === undefined && /^(read|mapfile|readarray)$/.test(command.name.text)) {
      for (const item of command.prefix)
        if (item.type === "Assignment" && item.name === "IFS") this.#readOnlyIfs.add(item);
    }
    const argv = this.#argv(command);
    const head = argv[0];
    if (head === undefined) return;
    const source = context.src.slice(command.pos, command.end);
    if (head.word.literal && !isWrapper(head.word.text)) {
      // The common case: an ordinary program that runs nothing else.
      this.#report(
        head,
        argv.slice(1).map((item) => item.word),
        source,
        context.via,
        keyAt(context, head.pos),
        context.local,
      );
      return;
    }
    const queue: PendingCommand[] = [{ argv, via: context.via, source, local: context.local }];
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
  #report(
    head: ArgvItem,
    args: ShellWord[],
    source: string,
    via: readonly string[],
    key: SortKey,
    local: DirectoryChange | undefined,
  ): boolean {
    const name = head.word.text;
    this.#collector.addCommand(key, { name, args, source, via: [...via] }, head.word.literal, local);
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
    if (!this.#report(head, args, pending.source, pending.via, key, pending.local)) return;
    this.#applyOutcomes(
      unwrapCommand(head.word.text, rest),
      key,
      pending.via,
      context,
      queue,
      pending.source,
      pending.local,
    );
  }

  #applyOutcomes(
    outcomes: readonly WrapperOutcome[],
    key: SortKey,
    via: readonly string[],
    context: Context,
    queue: PendingCommand[],
    parentSource = "",
    local: DirectoryChange | undefined = context.local,
  ): void {
    for (const outcome of outcomes) {
      switch (outcome.kind) {
        case "runs":
          queue.push({
            argv: outcome.argv,
            via: [...via, outcome.via],
            source: sliceOf(outcome.argv, context.src) || parentSource,
            local: combine(local, outcome.chdir),
          });
          break;
        case "code": {
          const { code, pos } = outcome;
          const innerVia = [...via, outcome.via];
          this.#deferred.push(() =>
            this.#addSource(code, keyAt(context, pos), innerVia, context.depth + 1, context.loop, local),
          );
          break;
        }
        case "opaque":
          this.#opaque(key, outcome.reason);
          break;
        case "defines":
          this.#collector.define(outcome.name, "alias");
          break;
        case "sets":
          this.#sets(outcome.name, outcome.value, outcome.how, key, key[key.length - 1] ?? 0, context);
          break;
        case "arithmetic":
          checkArithmeticText(outcome.text, this.#collector.arithmetic.sink(key, outcome.where));
          break;
        case "chdir":
          this.#collector.addDirectoryChange(
            key,
            local === undefined
              ? outcome.change
              : {
                  unknown: "the command changes folder inside shell code that already runs in another folder",
                },
            shown(parentSource),
            context.loop,
          );
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
 * find -exec and sh -c), every file it redirects to, the folders they run in, and every reason
 * it cannot be fully seen — including every construct whose meaning depends on a value only
 * known at run time (arithmetic on variables, `${!x}`, `${x@P}`, traps, functions, aliases …).
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
