import type { ArithmeticExpression, ParameterExpansionPart, TestExpression, Word, WordPart } from "unbash";
import type { ArithmeticSink } from "./arithmetic-ledger.ts";
import { shown } from "./shown-text.ts";

/**
 * The operands of bash arithmetic, judged by what bash will evaluate: numbers are harmless,
 * variables are reported to the ledger (their values are evaluated in turn), and anything else
 * — a substitution, quotes inside `$((…))`, positional parameters, `${x:-…}` — is unsafe.
 */

const NUMBER = /^(?:0[xX][0-9a-fA-F]+|[0-9]+#[0-9A-Za-z@_]+|[0-9]+)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Special parameters that always expand to a number. */
const NUMERIC_SPECIALS = new Set(["#", "?", "$", "!"]);
const ASSIGNMENTS = new Set(["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="]);
/** Test operators that compare their operands as arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** Test operators whose operand is a variable name (with an arithmetic subscript). */
const NAME_TESTS = new Set(["-v", "-R"]);

/**
 * Text bash evaluates as arithmetic after the shell has already expanded it (`let` arguments,
 * subscripts of names given to `read`, `[[ x -eq 1 ]]` operands): every variable name in it is
 * read; quotes, `$` and backquotes in it would be expanded once more.
 */
export function checkArithmeticText(text: string, sink: ArithmeticSink): void {
  if (/[$`'"\\]/.test(text)) {
    sink.unsafe(shown(text));
    return;
  }
  const withoutNumbers = text.replace(/\b[0-9]+#[0-9A-Za-z@_]+|\b0[xX][0-9a-fA-F]+|\b[0-9]+\b/g, " ");
  for (const match of withoutNumbers.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) sink.reads(match[0]);
  // `let PATH=1`, `x[HOME+=1]`: an assigned name is set to a number.
  for (const match of withoutNumbers.matchAll(ASSIGNED_NAME))
    sink.setsNumber((match[1] ?? match[2]) as string);
}

/** A name an arithmetic text assigns to: `n=`, `n[i]+=`, `n++`, `--n` (not `n==`). */
const ASSIGNED_NAME =
  /([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)/g;

/** `$x`, `${x}`, `${#x}`, `${a[i]}` as an arithmetic operand. */
function expansionOperand(part: WordPart, sink: ArithmeticSink): void {
  if (part.type === "SimpleExpansion") {
    const name = part.text.slice(1);
    if (NUMERIC_SPECIALS.has(name)) return;
    if (NAME.test(name)) sink.reads(name);
    else sink.unsafe(`${shown(part.text)}, a value the command chooses`);
    return;
  }
  if (part.type !== "ParameterExpansion") {
    sink.unsafe(`${shown(part.text)}, whose result is only known when the shell runs`);
    return;
  }
  parameterOperand(part, sink);
}

function parameterOperand(part: ParameterExpansionPart, sink: ArithmeticSink): void {
  const name = part.parameter;
  if (part.index !== undefined) checkSubscript(part.index, sink);
  // `${#x}` is a length, always a number.
  if (part.prefix === "#" && part.operation === undefined) return;
  if (part.prefix !== undefined || part.operation !== undefined) {
    sink.unsafe(`${shown(part.text)}, whose result is only known when the shell runs`);
    return;
  }
  if (NUMERIC_SPECIALS.has(name)) return;
  if (NAME.test(name)) sink.reads(name);
  else sink.unsafe(`${shown(part.text)}, a value the command chooses`);
}

/** A subscript (`a[i]`, `${a[$i]}`): arithmetic for indexed arrays; `@` and `*` list them all. */
export function checkSubscript(index: Word, sink: ArithmeticSink): void {
  if (index.text === "@" || index.text === "*") return;
  checkShellWord(index, sink);
}

/**
 * A shell word whose expanded value bash then evaluates as arithmetic (`[[ $x -eq 1 ]]`,
 * `${s:$n}`, `${a[$i]}`): quotes are removed first, expansions are spliced in.
 */
export function checkShellWord(word: Word, sink: ArithmeticSink): void {
  const parts = word.parts;
  if (parts === undefined) {
    checkArithmeticText(word.value, sink);
    return;
  }
  let text = "";
  const stack: WordPart[] = [...parts].reverse();
  for (let part = stack.pop(); part !== undefined; part = stack.pop()) {
    switch (part.type) {
      case "Literal":
        text += part.value;
        break;
      case "SingleQuoted":
      case "AnsiCQuoted":
        text += part.value;
        break;
      case "DoubleQuoted":
        stack.push(...[...part.parts].reverse());
        break;
      case "SimpleExpansion":
      case "ParameterExpansion":
        expansionOperand(part, sink);
        text += " 0 ";
        break;
      case "ArithmeticExpansion":
        // Checked as its own arithmetic context; its result is a number.
        text += " 0 ";
        break;
      default:
        sink.unsafe(`${shown(part.text)}, whose result is only known when the shell runs`);
        text += " 0 ";
    }
  }
  checkArithmeticText(text, sink);
}

/** An operand inside `$((…))`, `((…))` or `for ((…))`, where quotes are not removed. */
function checkOperand(value: string, parts: readonly WordPart[] | undefined, sink: ArithmeticSink): void {
  if (NUMBER.test(value)) return;
  if (parts === undefined) {
    // Without parts the parser saw no expansion; `$1` still arrives this way.
    if (/[$`'"\\]/.test(value)) sink.unsafe(`${shown(value)}, a value the command chooses`);
    else checkArithmeticText(value, sink);
    return;
  }
  let text = "";
  for (const part of parts) {
    if (part.type === "Literal") text += part.value;
    else if (part.type === "SimpleExpansion" || part.type === "ParameterExpansion") {
      expansionOperand(part, sink);
      text += " 0 ";
    } else if (part.type === "ArithmeticExpansion") text += " 0 ";
    else if (part.type === "SingleQuoted" || part.type === "DoubleQuoted" || part.type === "AnsiCQuoted") {
      sink.unsafe(
        `the quoted text ${shown(part.text)} (inside arithmetic bash does not treat quotes as quotes, and still runs any substitution in them)`,
      );
      text += " 0 ";
    } else {
      sink.unsafe(`${shown(part.text)}, whose result is only known when the shell runs`);
      text += " 0 ";
    }
  }
  checkArithmeticText(text, sink);
}

/** The target of `x=…`, `x+=…`, `x++`: an assignment reads the old value unless it is plain `=`. */
function checkTarget(node: ArithmeticExpression, reads: boolean, sink: ArithmeticSink): void {
  if (node.type !== "ArithmeticWord") {
    checkExpression(node, sink);
    return;
  }
  const target = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?$/s.exec(node.value);
  if (target === null || node.parts !== undefined) {
    checkOperand(node.value, node.parts, sink);
    return;
  }
  const [, name, subscript] = target as unknown as [string, string, string | undefined];
  if (subscript !== undefined) checkArithmeticText(subscript, sink);
  if (reads) sink.reads(name);
  sink.setsNumber(name);
}

/** Every operand of an arithmetic expression (an explicit stack: expressions can be long). */
export function checkExpression(expression: ArithmeticExpression, sink: ArithmeticSink): void {
  const stack: ArithmeticExpression[] = [expression];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    switch (node.type) {
      case "ArithmeticWord":
        checkOperand(node.value, node.parts, sink);
        break;
      case "ArithmeticBinary":
        if (ASSIGNMENTS.has(node.operator)) {
          checkTarget(node.left, node.operator !== "=", sink);
          stack.push(node.right);
        } else stack.push(node.right, node.left);
        break;
      case "ArithmeticUnary":
        if (node.operator === "++" || node.operator === "--") checkTarget(node.operand, true, sink);
        else stack.push(node.operand);
        break;
      case "ArithmeticTernary":
        stack.push(node.alternate, node.consequent, node.test);
        break;
      case "ArithmeticGroup":
        stack.push(node.expression);
        break;
      case "ArithmeticCommandExpansion":
        sink.unsafe(`the command substitution ${shown(node.text)}, whose output is only known when it runs`);
        break;
    }
  }
}

/** A variable name given to a builtin or `-v`: its subscript, if any, is arithmetic. */
function checkNameSubscript(name: string, sink: ArithmeticSink): void {
  const bracket = name.indexOf("[");
  if (bracket > 0 && name.endsWith("]")) {
    const subscript = name.slice(bracket + 1, -1);
    if (subscript !== "@" && subscript !== "*") checkArithmeticText(subscript, sink);
  }
}

/** The arithmetic inside `[[ … ]]`: `-eq` and friends compare arithmetic, `-v` takes a name. */
export function checkTest(expression: TestExpression, sink: ArithmeticSink): void {
  const stack: TestExpression[] = [expression];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    switch (node.type) {
      case "TestBinary":
        if (ARITHMETIC_TESTS.has(node.operator)) {
          checkShellWord(node.left, sink);
          checkShellWord(node.right, sink);
        }
        break;
      case "TestUnary":
        if (NAME_TESTS.has(node.operator)) {
          const operand = node.operand;
          // No pathname expansion happens inside [[ ]]: `a[x]` is a name with a subscript.
          if (
            operand.parts === undefined ||
            operand.parts.every((p) => p.type === "Literal" || p.type === "Glob")
          )
            checkNameSubscript(operand.value, sink);
          else
            sink.unsafe(`the variable name ${shown(operand.text)}, which is only known when the shell runs`);
        }
        break;
      case "TestLogical":
        stack.push(...node.operands);
        break;
      case "TestNot":
        stack.push(node.operand);
        break;
      case "TestGroup":
        stack.push(node.expression);
        break;
    }
  }
}

/** Whether a value assigned to a variable is a plain number (or an arithmetic result). */
export function isNumberValue(word: Word): boolean {
  const parts = word.parts;
  if (parts === undefined || parts.every((p) => p.type === "Literal"))
    return /^[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+#[0-9A-Za-z@_]+|[0-9]+)?$/.test(word.value);
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only?.type === "ArithmeticExpansion") return true;
  return (
    only?.type === "DoubleQuoted" && only.parts.length === 1 && only.parts[0]?.type === "ArithmeticExpansion"
  );
}
