import type { Turn } from "./transcript.ts";

/**
 * How many items (texts, cards, notices) of a recorded conversation the chat draws when it is
 * opened, and how many more each "Show earlier" draws. A run of 10,000 calls drew 10,000 cards
 * (190,000 elements) and froze the page for half a minute before anything showed.
 */
export const DRAWN_ITEMS = 400;

function itemCount(turns: readonly Turn[]): number {
  return turns.reduce((sum, turn) => sum + turn.items.length, 0);
}

/** The items at the start of a conversation opened from its history that are not drawn at first. */
export function hiddenAtFirst(turns: readonly Turn[]): number {
  return Math.max(0, itemCount(turns) - DRAWN_ITEMS);
}

/** After "Show earlier": DRAWN_ITEMS fewer hidden. */
export function showEarlier(hidden: number): number {
  return Math.max(0, hidden - DRAWN_ITEMS);
}

/**
 * A turn cut to its items after `skip`, the same object as long as the turn is: the chat redraws
 * only the turn that changed (a streaming run's), not the one the cut falls in.
 */
const cuts = new WeakMap<Turn, { skip: number; cut: Turn }>();

function cutTurn(turn: Turn, skip: number): Turn {
  const known = cuts.get(turn);
  if (known?.skip === skip) return known.cut;
  const cut = { ...turn, items: turn.items.slice(skip) };
  cuts.set(turn, { skip, cut });
  return cut;
}

interface TranscriptWindow {
  /** The turns drawn, with their place among all of them; the first cut to its latest items when the rest of it is hidden. */
  turns: Array<{ turn: Turn; index: number }>;
  /** How many items are not drawn (all before the first drawn). */
  hidden: number;
}

/**
 * The turns to draw when the first `hidden` items of the conversation are not: a turn all of
 * whose items are hidden is not drawn (unless it is the last, which may be streaming); the one
 * the cut falls in is drawn from its prompt, then its items after the cut. Items that came
 * after the conversation was opened (a run going on) are always drawn.
 */
export function transcriptWindow(turns: readonly Turn[], hidden: number): TranscriptWindow {
  const shown: TranscriptWindow["turns"] = [];
  let skip = Math.min(hidden, itemCount(turns));
  const notDrawn = skip;
  turns.forEach((turn, index) => {
    const last = index === turns.length - 1;
    if (skip >= turn.items.length && skip > 0 && !last) {
      skip -= turn.items.length;
      return;
    }
    shown.push({ turn: skip > 0 ? cutTurn(turn, skip) : turn, index });
    skip = 0;
  });
  return { turns: shown, hidden: notDrawn };
}
