// A command's terminal output as the screen would show it, for the model to read: what a program
// prints to a terminal is not only text. Colours and cursor moves (CSI), window titles, links and
// clipboard writes (OSC), device strings (DCS, APC…) cost tokens and mean nothing in a transcript,
// and a progress bar redraws its line with `\r` hundreds of times. The model gets each line in
// its last state, the sequences gone.

/**
 * The most a line keeps for a `\r` or a cursor move to rewrite. A longer line (a program printing
 * without newlines) is passed on in pieces of this size, so memory stays flat; a rewrite only
 * reaches back to the start of the current piece.
 */
export const MAX_LINE_BYTES = 64 * 1024;
/** The furthest column a cursor move reaches, as a wide terminal's last column would stop it. */
const MAX_CURSOR_COLUMN = 1024;
/** The largest CSI parameter taken as it is (a larger one only moves the cursor as far as it goes). */
const MAX_PARAM = 1_000_000;

// Where the reader is: in plain text, after ESC, in an escape's intermediates, in a CSI, or in a
// string (OSC, DCS, SOS, PM, APC) to skip, possibly just after its ESC.
const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
const STRING = 4;
const STRING_ESCAPE = 5;

const BS = 0x08;
const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
/** The first byte of a C1 control in UTF-8 (U+0080 to U+009F are C2 80 to C2 9F). */
const C1_LEAD = 0xc2;
const C1_ST = 0x9c;
const NEWLINE = Buffer.from("\n");
/**
 * The bytes that steer what the screen shows and are looked for in plain text. The other C0
 * controls and DEL only show nothing: `withoutControls` removes them from the text the model reads.
 */
const STEERING = [ESC, CR, BS, C1_LEAD] as const;

/** Whether `b[k]`, a C2 byte, starts a C1 control (the next byte is always there: see `write`). */
function c1At(b: Buffer, k: number): boolean {
  const next = b[k + 1] as number;
  return next >= 0x80 && next <= 0x9f;
}

/**
 * Turns a terminal's byte stream into the text its screen would show, chunk by chunk (an escape
 * sequence split between chunks is joined up), in time linear in its length and with memory
 * bounded by `MAX_LINE_BYTES`. It works on the bytes (UTF-8 passes through as it came):
 * - CSI sequences (SGR colours, cursor and mode changes) are removed; the ones that shape the
 *   current line are applied first: erase in line (`ESC[K`, `1K`, `2K`), column moves (`ESC[nG`,
 *   `nC`, `nD`).
 * - OSC (titles, hyperlinks, clipboard), DCS, SOS, PM and APC strings are removed up to their
 *   terminator (ST, BEL for OSC) or CAN/SUB; one left unterminated ends at the end of its line
 *   (a terminal would hide everything after it: a stray `ESC ]` in binary output then hides a
 *   line, not the rest of the output). Other escape sequences (`ESC 7`, `ESC ( B`) are removed.
 * - `\r` returns to the start of the line, which what follows overwrites (`\r\n` is a plain
 *   newline; a `\r` at the very end changes nothing); backspace moves one character back.
 * - C1 controls are removed (their 8-bit CSI, OSC… introduce sequences as above). Other C0
 *   controls and DEL show nothing but are left in, for `withoutControls` to remove from the text
 *   that is read; tab and newline stay.
 * Columns are counted in bytes: a line rewritten over characters of another UTF-8 length can
 * show a replacement character where one was cut. Lines moved between with cursor-up (a
 * multi-line progress display) stay as separate lines, as they were printed.
 */
export class ScreenText {
  private state = GROUND;
  /** The current line as the screen shows it, its length and the cursor's column in it. */
  private readonly line = Buffer.alloc(MAX_LINE_BYTES);
  private length = 0;
  private column = 0;
  /** The CSI being read: its first parameter (-1: none), and whether it is one we may apply. */
  private param = -1;
  private paramDone = false;
  private plainCsi = true;
  /** The string being skipped is an OSC (which BEL also ends). */
  private osc = false;
  /** A C2 byte that ended the last chunk: whether it starts a C1 control depends on the next. */
  private heldLead = false;
  /** Where the next byte of each kind in STEERING is in the chunk being fed (-1: not looked yet). */
  private readonly nextAt = new Int32Array(4);
  /** A character of the current line was written over or stepped back into (see `flushLine`). */
  private rewritten = false;
  /** Where the next newline of the chunk being fed is, from the last look (-1: not looked yet). */
  private nextNewline = -1;
  /** Text finished by the current `write`. */
  private parts: Buffer[] = [];

  /** The text of the lines `chunk` finished (the last, unfinished line is held: `\r` may rewrite it). */
  write(chunk: Buffer): Buffer {
    let bytes = chunk;
    if (this.heldLead) {
      this.heldLead = false;
      bytes = Buffer.concat([Buffer.from([C1_LEAD]), bytes]);
    }
    if (bytes.length > 0 && bytes[bytes.length - 1] === C1_LEAD) {
      this.heldLead = true;
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    this.feed(bytes);
    return this.take();
  }

  /** The rest, once the output has ended: the last line as it stands, without a newline added. */
  end(): Buffer {
    if (this.heldLead) {
      this.heldLead = false;
      // A lone C2 at the very end is no control, only a cut character.
      if (this.state === GROUND) this.put(Buffer.from([C1_LEAD]), 0, 1);
    }
    this.state = GROUND;
    this.flushLine(false);
    return this.take();
  }

  private take(): Buffer {
    const parts = this.parts;
    this.parts = [];
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }

  private feed(b: Buffer): void {
    const n = b.length;
    let i = 0;
    this.nextNewline = -1;
    this.nextAt.fill(-1);
    while (i < n) {
      if (this.state === GROUND) {
        let k = this.nextSpecial(b, i);
        // A C2 byte that leads a printable character (©, °) is text.
        while (k < n && b[k] === C1_LEAD && !c1At(b, k)) k = this.nextSpecial(b, k + 1);
        if (k > i) this.text(b, i, k);
        if (k === n) return;
        if (b[k] === C1_LEAD) {
          this.control(b[k + 1] as number);
          i = k + 2;
        } else {
          this.control(b[k] as number);
          i = k + 1;
        }
      } else if (this.state === STRING) {
        let k = i;
        for (; k < n; k++) {
          const c = b[k] as number;
          if (c === BEL || c === LF || c === CAN || c === SUB || c === ESC) break;
          if (c === C1_LEAD && b[k + 1] === C1_ST) break;
        }
        if (k === n) return;
        const c = b[k] as number;
        i = k + 1;
        if (c === ESC) this.state = STRING_ESCAPE;
        else if (c === BEL && !this.osc) continue;
        else if (c === C1_LEAD) {
          this.state = GROUND;
          i = k + 2;
        } else this.state = GROUND;
        if (c === LF) i = k; // read again, as the newline it is
      } else if (this.sequence(b[i] as number)) i++;
    }
  }

  /**
   * Where the next byte that steers the screen (ESC, CR, BS, a C2 that may lead a C1 control) is
   * from `from`, or the chunk's end. Each kind is looked for natively and its place remembered
   * until passed, so a chunk is searched once per kind however many runs of text it holds.
   */
  private nextSpecial(b: Buffer, from: number): number {
    let first = b.length;
    for (let kind = 0; kind < STEERING.length; kind++) {
      let at = this.nextAt[kind] as number;
      if (at < from) {
        at = b.indexOf(STEERING[kind] as number, from);
        if (at === -1) at = b.length;
        this.nextAt[kind] = at;
      }
      if (at < first) first = at;
    }
    return first;
  }

  /** Plain text and newlines (`b[from, to)` holds no other control). */
  private text(b: Buffer, from: number, to: number): void {
    // The next newline is looked for once per newline, not once per run of text (a run of
    // `\rNN%` would otherwise search the whole rest of the chunk each time).
    if (this.nextNewline < from) {
      this.nextNewline = b.indexOf(LF, from);
      if (this.nextNewline === -1) this.nextNewline = b.length;
    }
    const first = this.nextNewline;
    if (first >= to) {
      this.put(b, from, to);
      return;
    }
    this.put(b, from, first);
    this.flushLine(true);
    // Whole lines in between are shown as they are: nothing in them rewrites anything.
    const last = b.lastIndexOf(LF, to - 1);
    if (last > first) this.parts.push(b.subarray(first + 1, last + 1));
    this.put(b, last + 1, to);
  }

  /** A control character (a C1 one as its code point) met in plain text. */
  private control(c: number): void {
    switch (c) {
      case CR:
        this.column = 0;
        return;
      case BS:
        this.back(1);
        return;
      case ESC:
        this.state = ESCAPE;
        return;
      case 0x9b: // CSI
        this.startCsi();
        return;
      case 0x9d: // OSC
      case 0x90: // DCS
      case 0x98: // SOS
      case 0x9e: // PM
      case 0x9f: // APC
        this.startString(c === 0x9d);
        return;
      default:
      // Any other control shows nothing: it is dropped.
    }
  }

  /** One byte inside an escape sequence; false when it ended the sequence and must be read again. */
  private sequence(c: number): boolean {
    switch (this.state) {
      case ESCAPE:
        if (c === 0x5b) this.startCsi();
        else if (c === 0x5d) this.startString(true);
        else if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.startString(false);
        else if (c >= 0x20 && c <= 0x2f) this.state = ESCAPE_INTERMEDIATE;
        else if (c >= 0x30 && c <= 0x7e) this.state = GROUND;
        else if (c !== ESC) return this.abort();
        return true;
      case ESCAPE_INTERMEDIATE:
        if (c >= 0x30 && c <= 0x7e) this.state = GROUND;
        else if (c < 0x20 || c > 0x2f) return this.abort();
        return true;
      case CSI:
        if (c >= 0x30 && c <= 0x39) {
          if (!this.paramDone) this.param = Math.min(Math.max(this.param, 0) * 10 + (c - 0x30), MAX_PARAM);
        } else if (c === 0x3b) this.paramDone = true;
        else if (c >= 0x20 && c <= 0x3f)
          this.plainCsi = false; // private modes (`?25l`), intermediates
        else if (c >= 0x40 && c <= 0x7e) {
          this.state = GROUND;
          if (this.plainCsi) this.applyCsi(c, this.param);
        } else return this.abort();
        return true;
      case STRING_ESCAPE:
        // ESC \ is the string's terminator; ESC and anything else starts a new sequence.
        if (c === 0x5c) {
          this.state = GROUND;
          return true;
        }
        this.state = ESCAPE;
        return false;
      default:
        return true;
    }
  }

  /** A malformed sequence ends where it stops making sense; that byte is read again as text. */
  private abort(): false {
    this.state = GROUND;
    return false;
  }

  private startCsi(): void {
    this.state = CSI;
    this.param = -1;
    this.paramDone = false;
    this.plainCsi = true;
  }

  private startString(osc: boolean): void {
    this.state = STRING;
    this.osc = osc;
  }

  /** A CSI that shapes the current line; every other one just goes. */
  private applyCsi(final: number, param: number): void {
    const count = param <= 0 ? 1 : param;
    switch (final) {
      case 0x4b: // K: erase in line
        if (param <= 0) this.length = Math.min(this.length, this.column);
        else if (param === 1) this.line.fill(0x20, 0, Math.min(this.column + 1, this.length));
        else if (param === 2) this.length = 0;
        return;
      case 0x47: // G: cursor to column
      case 0x60: // `: the same
        this.column = Math.min(count - 1, MAX_CURSOR_COLUMN);
        return;
      case 0x43: // C: cursor forward
      case 0x61: // a: the same
        this.column = Math.min(this.column + count, Math.max(MAX_CURSOR_COLUMN, this.column));
        return;
      case 0x44: // D: cursor back
        this.back(count);
        return;
      default:
    }
  }

  /** Moves the cursor `count` characters back (over a UTF-8 character's continuation bytes). */
  private back(count: number): void {
    this.rewritten = true;
    for (let left = Math.min(count, this.column); left > 0 && this.column > 0; left--) {
      this.column--;
      while (
        this.column > 0 &&
        this.column < this.length &&
        ((this.line[this.column] as number) & 0xc0) === 0x80
      )
        this.column--;
    }
  }

  /** Writes `b[from, to)` (plain text, no newline) at the cursor, over what is there. */
  private put(b: Buffer, from: number, to: number): void {
    let at = from;
    if (this.column < this.length) this.rewritten = true;
    while (at < to) {
      if (this.column >= MAX_LINE_BYTES) this.flushLine(false);
      if (this.column > this.length) this.line.fill(0x20, this.length, this.column);
      const take = Math.min(to - at, MAX_LINE_BYTES - this.column);
      if (take < 16) for (let j = 0; j < take; j++) this.line[this.column + j] = b[at + j] as number;
      else b.copy(this.line, this.column, at, at + take);
      at += take;
      this.column += take;
      if (this.column > this.length) this.length = this.column;
    }
  }

  /** Passes the current line on, with a newline when `newline`, and starts an empty one. */
  private flushLine(newline: boolean): void {
    if (this.rewritten) this.length = dropCutCharacters(this.line, this.length);
    this.rewritten = false;
    if (this.length > 0) {
      const shown = Buffer.allocUnsafe(this.length + (newline ? 1 : 0));
      this.line.copy(shown, 0, 0, this.length);
      if (newline) shown[this.length] = LF;
      this.parts.push(shown);
    } else if (newline) this.parts.push(NEWLINE);
    this.length = 0;
    this.column = 0;
  }
}

/**
 * Removes from `line[0, length)` what is left of characters written over in part (continuation
 * bytes that no lead byte starts), as the screen shows a character replaced whole; returns the
 * new length.
 */
function dropCutCharacters(line: Buffer, length: number): number {
  let kept = 0;
  let expected = 0;
  for (let i = 0; i < length; i++) {
    const c = line[i] as number;
    if ((c & 0xc0) === 0x80) {
      if (expected === 0) continue;
      expected--;
    } else expected = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    line[kept++] = c;
  }
  return kept;
}

/**
 * `text` without the controls that show nothing and that `ScreenText` leaves in plain text for
 * speed (C0 controls but tab and newline, DEL; C1 controls, which it removes, for good measure).
 */
export function withoutControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
}

/** The bytes `withoutControls` would remove: C0 controls but tab and newline, and DEL. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const HIDDEN_BYTE = /[\x00-\x08\x0b-\x1f\x7f]/;

/**
 * `bytes` (what `ScreenText` passed on) without the controls that show nothing, so what is
 * counted and kept of an output is what the model reads. These bytes never occur inside a UTF-8
 * character, so removing them leaves every character whole. Most chunks hold none: they are
 * looked for natively, and only a chunk holding one is copied.
 */
export function visibleBytes(bytes: Buffer): Buffer {
  if (!HIDDEN_BYTE.test(bytes.toString("latin1"))) return bytes;
  const out = Buffer.allocUnsafe(bytes.length);
  let kept = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a) || b === 0x7f) continue;
    out[kept++] = b;
  }
  return out.subarray(0, kept);
}

/** A whole output (not a stream) as the model reads it: see `ScreenText` and `withoutControls`. */
export function screenTextOf(bytes: Buffer): string {
  const screen = new ScreenText();
  return withoutControls(Buffer.concat([screen.write(bytes), screen.end()]).toString("utf8"));
}
