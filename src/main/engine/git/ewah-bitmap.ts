// Git's compressed bitmaps (EWAH), as the split index's link extension stores them: a bit count,
// a count of 64-bit words, the words, and the position of the last run word, all big-endian. A run
// word holds a repeated bit (bit 0), how many words of it (bits 1–32) and how many literal words
// follow it (bits 33–63); literal words give their bits lowest first.

/** A bitmap that does not read as one. */
export class BadBitmap extends Error {}

const RUN_LENGTH_MASK = (1n << 32n) - 1n;
/** More set bits than any index has entries: a bitmap claiming more is refused, not expanded. */
const MAX_BITS = 1 << 24;

/** The positions of the set bits of the bitmap starting at `at`, and where the bitmap ends. */
export function ewahSetBits(bytes: Buffer, at: number): { bits: number[]; end: number } {
  if (at + 8 > bytes.length) throw new BadBitmap("a bitmap runs past the end");
  const wordCount = bytes.readUInt32BE(at + 4);
  const end = at + 8 + wordCount * 8 + 4;
  if (end > bytes.length) throw new BadBitmap("a bitmap runs past the end");
  const word = (i: number): bigint => bytes.readBigUInt64BE(at + 8 + i * 8);
  const bits: number[] = [];
  let position = 0;
  let i = 0;
  while (i < wordCount) {
    const run = word(i++);
    const runWords = Number((run >> 1n) & RUN_LENGTH_MASK);
    const literals = Number(run >> 33n);
    if ((run & 1n) === 1n) {
      if (bits.length + runWords * 64 > MAX_BITS) throw new BadBitmap("a bitmap sets too many bits");
      for (let k = 0; k < runWords * 64; k++) bits.push(position++);
    } else position += runWords * 64;
    if (i + literals > wordCount) throw new BadBitmap("a bitmap's literal words run past its end");
    for (let k = 0; k < literals; k++) {
      const literal = word(i++);
      for (let b = 0n; b < 64n; b++, position++) if (((literal >> b) & 1n) === 1n) bits.push(position);
    }
  }
  return { bits, end };
}
