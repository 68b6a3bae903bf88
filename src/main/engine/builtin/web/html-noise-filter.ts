/**
 * A streaming pass over an HTML body's bytes, as they arrive, that leaves out what is inside
 * `<script>` and `<style>` elements (the tags themselves stay, empty). web_fetch reads at most
 * max_bytes of a body: without this, a page with megabytes of inline code before its text spent
 * the whole budget on code the converter then drops, and the model got nothing but the cut note.
 *
 * It works on bytes, so it holds at most a few bytes between chunks whatever the page, and it
 * only recognises ASCII markup: in an encoding where `<script` is not those bytes (UTF-16) it
 * leaves everything in. Comments are passed through whole, so a `<script>` written inside one
 * does not hide the text after it.
 */

/** Keeps what a page's reader may need of each chunk; `skipped` counts what it left out. */
export interface BodyFilter {
  push(chunk: Buffer): Buffer;
  /** What it still held when the body ended. */
  end(): Buffer;
  readonly skipped: number;
}

const LT = 0x3c;
const GT = 0x3e;
const RAW_ELEMENTS = ["script", "style"] as const;
type RawElement = (typeof RAW_ELEMENTS)[number];

/** Bytes that may end a tag's name: whitespace, `/` or `>`. */
function endsName(byte: number): boolean {
  return (
    byte === 0x20 ||
    byte === 0x09 ||
    byte === 0x0a ||
    byte === 0x0c ||
    byte === 0x0d ||
    byte === 0x2f ||
    byte === GT
  );
}

function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
}

type Match = "yes" | "no" | "more";

/** Whether `data` at `at` holds `word` (ASCII, any case) followed by a name's end; "more" when it ran out first. */
function startsWith(data: Buffer, at: number, word: string, delimited: boolean): Match {
  for (let i = 0; i < word.length; i++) {
    if (at + i >= data.length) return "more";
    if (lower(data[at + i] as number) !== word.charCodeAt(i)) return "no";
  }
  if (!delimited) return "yes";
  if (at + word.length >= data.length) return "more";
  return endsName(data[at + word.length] as number) ? "yes" : "no";
}

type State =
  | { in: "text" }
  | { in: "comment" }
  /** Inside an opening tag of a raw element, up to its `>` (quotes may hold a `>`). */
  | { in: "tag"; element: RawElement; quote: number }
  /** Inside a raw element's content, which is left out up to its closing tag. */
  | { in: "raw"; element: RawElement };

export class HtmlNoiseFilter implements BodyFilter {
  private state: State = { in: "text" };
  private carry: Buffer = Buffer.alloc(0);
  private left = 0;

  get skipped(): number {
    return this.left;
  }

  push(chunk: Buffer): Buffer {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = Buffer.alloc(0);
    const out: Buffer[] = [];
    let pos = 0;
    while (pos < data.length) {
      const state = this.state;
      if (state.in === "text") {
        // Only a `<` followed by `!`, `s` or `S` (or the chunk's end) may open what is followed:
        // the others stay in the run kept whole, so a page of ordinary tags costs one indexOf each.
        let lt = data.indexOf(LT, pos);
        let opened: number | "more" = 1;
        while (lt >= 0) {
          const next = data[lt + 1];
          if (next === undefined || next === 0x21 || (next | 0x20) === 0x73) {
            opened = this.opening(data, lt);
            if (opened !== 1) break;
          }
          lt = data.indexOf(LT, lt + 1);
        }
        if (lt < 0) {
          out.push(data.subarray(pos));
          break;
        }
        if (opened === "more") {
          out.push(data.subarray(pos, lt));
          this.carry = Buffer.from(data.subarray(lt));
          break;
        }
        out.push(data.subarray(pos, lt + opened));
        pos = lt + opened;
      } else if (state.in === "comment") {
        const close = data.indexOf("-->", pos, "latin1");
        if (close < 0) {
          // Its last two bytes may begin the "-->" the next chunk ends.
          const keep = Math.max(pos, data.length - 2);
          out.push(data.subarray(pos, keep));
          this.carry = Buffer.from(data.subarray(keep));
          break;
        }
        out.push(data.subarray(pos, close + 3));
        pos = close + 3;
        this.state = { in: "text" };
      } else if (state.in === "tag") {
        let i = pos;
        for (; i < data.length; i++) {
          const byte = data[i] as number;
          if (state.quote !== 0) {
            if (byte === state.quote) state.quote = 0;
          } else if (byte === 0x22 || byte === 0x27) state.quote = byte;
          else if (byte === GT) break;
        }
        if (i === data.length) {
          out.push(data.subarray(pos));
          break;
        }
        out.push(data.subarray(pos, i + 1));
        pos = i + 1;
        this.state = { in: "raw", element: state.element };
      } else {
        const end = this.closing(data, pos, state.element);
        if (end.at < 0) {
          this.left += end.keep - pos;
          this.carry = Buffer.from(data.subarray(end.keep));
          break;
        }
        this.left += end.at - pos;
        pos = end.at;
        this.state = { in: "text" };
      }
    }
    return out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
  }

  end(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    if (this.state.in === "raw") {
      this.left += rest.length;
      return Buffer.alloc(0);
    }
    return rest;
  }

  /**
   * At a `<` in text: how many bytes to pass on before the state changes (the `<` alone when it
   * opens nothing this filter follows), or "more" when the bytes so far cannot tell.
   */
  private opening(data: Buffer, lt: number): number | "more" {
    const comment = startsWith(data, lt + 1, "!--", false);
    if (comment === "yes") {
      this.state = { in: "comment" };
      return 4;
    }
    let undecided = comment === "more";
    for (const element of RAW_ELEMENTS) {
      const match = startsWith(data, lt + 1, element, true);
      if (match === "yes") {
        this.state = { in: "tag", element, quote: 0 };
        return 1 + element.length;
      }
      if (match === "more") undecided = true;
    }
    return undecided ? "more" : 1;
  }

  /**
   * Where a raw element's closing tag `</name` starts at or after `from` (`at`), or, when it is not
   * there yet (`at` -1), up to where its content can be dropped: a `<` near the end may begin it.
   */
  private closing(data: Buffer, from: number, element: RawElement): { at: number; keep: number } {
    let i = from;
    for (;;) {
      const lt = data.indexOf(LT, i);
      if (lt < 0) return { at: -1, keep: data.length };
      if (data[lt + 1] === undefined) return { at: -1, keep: lt };
      if (data[lt + 1] === 0x2f) {
        const match = startsWith(data, lt + 2, element, true);
        if (match === "yes") return { at: lt, keep: lt };
        if (match === "more") return { at: -1, keep: lt };
      }
      i = lt + 1;
    }
  }
}
