import type { ParameterExpansionPart } from "unbash";
import type { ArithmeticSink } from "./arithmetic-ledger.ts";
import { checkShellWord, checkSubscript, isNumberValue } from "./arithmetic-values.ts";
import { shown } from "./shown-text.ts";

/** Where a parameter expansion reports what it finds. */
interface ExpansionReport {
  /** For its subscript and `${s:offset:length}`, which bash evaluates as arithmetic. */
  arithmetic: ArithmeticSink;
  opaque(reason: string): void;
  /** `${x:=value}` sets x; `how` is given when the value may not be a plain number. */
  sets(name: string, how: string | undefined): void;
}

/**
 * `${…}` forms whose meaning depends on a value only known at run time: indirection (`${!x}`,
 * which can name `a[$(cmd)]`), prompt expansion (`${x@P}`, which runs substitutions in the
 * value), and the arithmetic in subscripts and slices.
 */
export function checkParameterExpansion(part: ParameterExpansionPart, report: ExpansionReport): void {
  const operation = part.operation;
  if (part.index !== undefined) checkSubscript(part.index, report.arithmetic);
  if (part.prefix === "!") {
    const listsNames = operation?.type === "Names";
    const listsKeys = part.index !== undefined && (part.index.text === "@" || part.index.text === "*");
    if (!listsNames && !listsKeys) {
      report.opaque(
        `${shown(part.text)} expands the variable whose name is the value of "${part.parameter}" (indirection), so what it reads — and any a[$(cmd)] subscript in that name, which runs cmd — is only known when the shell runs`,
      );
    }
  }
  if (operation === undefined) return;
  switch (operation.type) {
    case "Transform":
      if (operation.operand.text.includes("P")) {
        report.opaque(
          `${shown(part.text)} expands the value as a prompt string, which runs any command substitution in it`,
        );
      }
      break;
    case "Slice":
      checkShellWord(operation.offset, report.arithmetic);
      if (operation.length !== undefined) checkShellWord(operation.length, report.arithmetic);
      break;
    case "Default":
      if (operation.operator === "=" || operation.operator === ":=") {
        report.sets(part.parameter, isNumberValue(operation.operand) ? undefined : part.text);
      }
      break;
    default:
      break;
  }
}
