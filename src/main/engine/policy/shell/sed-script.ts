/**
 * A reader for sed scripts (GNU sed's grammar) that finds what a script does beyond editing its
 * stream: the files its `w`/`W` commands and `s///w` flags write, those its `r`/`R` commands
 * read, and whether an `e` command or
 * an `s///e` flag runs shell commands. A script it cannot read is reported as such, never
 * guessed at.
 */

interface SedScriptEffects {
  /** Files the script writes (`/dev/stdout` and `/dev/stderr` left out). */
  writes: string[];
  /** Files the script reads into its output (`r`, `R`). */
  reads: string[];
  /** Whether the script runs shell commands (`e`, `s///e`). */
  executes: boolean;
  /** Why the script could not be read. */
  error?: string;
}

class SedSyntax extends Error {}

const NO_ARGUMENT = new Set([..."=dDgGhHnNpPxzF"]);
const STREAMS = new Set(["/dev/stdout", "/dev/stderr"]);

class Reader {
  readonly #text: string;
  #i = 0;
  readonly #bracketAware: boolean;
  readonly writes: string[] = [];
  readonly reads: string[] = [];
  executes = false;

  constructor(text: string, bracketAware: boolean) {
    this.#text = text;
    this.#bracketAware = bracketAware;
  }

  #peek(): string | undefined {
    return this.#text[this.#i];
  }

  #next(): string {
    const ch = this.#text[this.#i++];
    if (ch === undefined) throw new SedSyntax("the script ends in the middle of a command");
    return ch;
  }

  #skipBlanks(): void {
    while (this.#peek() === " " || this.#peek() === "\t") this.#i++;
  }

  /** The rest of the line (a file name, a command, text). */
  #restOfLine(): string {
    const end = this.#text.indexOf("\n", this.#i);
    const line = this.#text.slice(this.#i, end < 0 ? undefined : end);
    this.#i = end < 0 ? this.#text.length : end;
    return line;
  }

  /** A label for `:`, `b`, `t`, `T`: up to `;` or the end of the line. */
  #label(): void {
    while (this.#peek() !== undefined && this.#peek() !== "\n" && this.#peek() !== ";") this.#i++;
  }

  /** A regex or replacement up to the unescaped delimiter; brackets hold it in a regex. */
  #delimited(delimiter: string, regex: boolean): void {
    for (;;) {
      const ch = this.#next();
      if (ch === "\\") {
        this.#next();
        continue;
      }
      if (ch === "\n" && !regex) continue;
      if (ch === delimiter) return;
      if (regex && this.#bracketAware && ch === "[") this.#bracket();
    }
  }

  #bracket(): void {
    if (this.#peek() === "^") this.#i++;
    if (this.#peek() === "]") this.#i++;
    for (;;) {
      const ch = this.#next();
      if (ch === "]") return;
      if (ch === "[" && (this.#peek() === ":" || this.#peek() === "=" || this.#peek() === ".")) {
        const close = `${this.#next()}]`;
        const end = this.#text.indexOf(close, this.#i);
        if (end < 0) throw new SedSyntax("an unterminated character class");
        this.#i = end + 2;
      }
    }
  }

  #address(): boolean {
    const ch = this.#peek();
    if (ch === undefined) return false;
    if (/\d/.test(ch)) {
      while (/\d/.test(this.#peek() ?? "")) this.#i++;
      if (this.#peek() === "~") {
        this.#i++;
        while (/\d/.test(this.#peek() ?? "")) this.#i++;
      }
      return true;
    }
    if (ch === "$") {
      this.#i++;
      return true;
    }
    if (ch === "/" || ch === "\\") {
      this.#i++;
      const delimiter = ch === "/" ? "/" : this.#next();
      this.#delimited(delimiter, true);
      while (this.#peek() === "I" || this.#peek() === "M") this.#i++;
      return true;
    }
    return false;
  }

  #addresses(): void {
    if (!this.#address()) return;
    this.#skipBlanks();
    if (this.#peek() !== ",") return;
    this.#i++;
    this.#skipBlanks();
    const ch = this.#peek();
    if (ch === "+" || ch === "~") {
      this.#i++;
      while (/\d/.test(this.#peek() ?? "")) this.#i++;
    } else if (!this.#address()) throw new SedSyntax("a second address is missing");
  }

  #write(file: string): void {
    const name = file.replace(/^[ \t]+/, "");
    if (name === "") throw new SedSyntax("a w command without a file name");
    if (!STREAMS.has(name)) this.writes.push(name);
  }

  #substitute(): void {
    const delimiter = this.#next();
    if (delimiter === "\n" || delimiter === "\\") throw new SedSyntax("a bad delimiter for s");
    this.#delimited(delimiter, true);
    this.#delimited(delimiter, false);
    for (;;) {
      const flag = this.#peek();
      if (flag === undefined || flag === "\n" || flag === ";" || flag === "}" || flag === "#") return;
      this.#i++;
      if (flag === "e") this.executes = true;
      else if (flag === "w") {
        this.#write(this.#restOfLine());
        return;
      } else if (!/[gpiImM0-9 \t]/.test(flag)) throw new SedSyntax(`an unknown flag "${flag}" for s`);
    }
  }

  read(): void {
    for (;;) {
      const ch = this.#peek();
      if (ch === undefined) return;
      if (/[\s;]/.test(ch)) {
        this.#i++;
        continue;
      }
      if (ch === "#") {
        this.#restOfLine();
        continue;
      }
      this.#addresses();
      this.#skipBlanks();
      while (this.#peek() === "!") {
        this.#i++;
        this.#skipBlanks();
      }
      this.#command(this.#next());
    }
  }

  #command(cmd: string): void {
    if (cmd === "{" || cmd === "}" || NO_ARGUMENT.has(cmd)) return;
    switch (cmd) {
      case ":":
      case "b":
      case "t":
      case "T":
        this.#skipBlanks();
        this.#label();
        return;
      case "l":
      case "L":
      case "q":
      case "Q":
        this.#skipBlanks();
        while (/\d/.test(this.#peek() ?? "")) this.#i++;
        return;
      case "a":
      case "i":
      case "c":
        this.#text_();
        return;
      case "r":
      case "R": {
        const file = this.#restOfLine().trim();
        if (file !== "") this.reads.push(file);
        return;
      }
      case "w":
      case "W":
        this.#write(this.#restOfLine());
        return;
      case "e":
        this.executes = true;
        this.#restOfLine();
        return;
      case "s":
        this.#substitute();
        return;
      case "y": {
        const delimiter = this.#next();
        this.#delimited(delimiter, false);
        this.#delimited(delimiter, false);
        return;
      }
      case "v":
        this.#label();
        return;
      default:
        throw new SedSyntax(`an unknown command "${cmd}"`);
    }
  }

  /** The text of a, i, c: one line (GNU), or lines continued with a trailing backslash. */
  #text_(): void {
    for (;;) {
      const line = this.#restOfLine();
      const continued = /\\$/.test(line) && !/\\\\$/.test(line.replace(/\\\\/g, ""));
      if (!continued || this.#peek() === undefined) return;
      this.#i++;
    }
  }
}

/** What a sed script does beyond editing its stream. */
export function readSedScript(script: string): SedScriptEffects {
  const outcomes: SedScriptEffects[] = [];
  for (const bracketAware of [true, false]) {
    const reader = new Reader(script, bracketAware);
    try {
      reader.read();
      outcomes.push({ writes: reader.writes, reads: reader.reads, executes: reader.executes });
    } catch (error) {
      if (!(error instanceof SedSyntax)) throw error;
      // GNU sed reads brackets in a regex; a sed that does not would reject the script.
      if (bracketAware) return { writes: [], reads: [], executes: false, error: error.message };
    }
  }
  return {
    writes: [...new Set(outcomes.flatMap((o) => o.writes))],
    reads: [...new Set(outcomes.flatMap((o) => o.reads))],
    executes: outcomes.some((o) => o.executes),
  };
}
