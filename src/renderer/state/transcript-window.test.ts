import { describe, expect, it } from "vitest";
import { newTurn, type TranscriptItem, type Turn } from "./transcript.ts";
import { DRAWN_ITEMS, hiddenAtFirst, showEarlier, transcriptWindow } from "./transcript-window.ts";

function turn(prompt: string, items: number): Turn {
  const list: TranscriptItem[] = Array.from({ length: items }, (_, i) => ({
    kind: "text",
    step: i,
    text: `${prompt} ${i}`,
  }));
  return { ...newTurn(prompt), status: "completed", items: list };
}

const drawnItems = (turns: readonly Turn[], hidden: number) =>
  transcriptWindow(turns, hidden).turns.reduce((sum, t) => sum + t.turn.items.length, 0);

describe("the part of a long conversation the chat draws", () => {
  // One run of 10,000 calls is 20,000 items; its chat drew them all when opened.
  const long = [turn("first", 3), turn("long", 20_000), turn("last", 2)];

  it("draws the latest items of a long conversation when it is opened, and all of a short one", () => {
    expect(hiddenAtFirst(long)).toBe(20_005 - DRAWN_ITEMS);
    expect(drawnItems(long, hiddenAtFirst(long))).toBe(DRAWN_ITEMS);
    const short = [turn("a", 10), turn("b", 10)];
    expect(hiddenAtFirst(short)).toBe(0);
    expect(transcriptWindow(short, 0).turns.map((t) => t.turn)).toEqual(short);
  });

  it("leaves out the turns before the cut, and draws the one it falls in from its prompt", () => {
    const drawn = transcriptWindow(long, hiddenAtFirst(long));
    expect(drawn.turns.map((t) => [t.index, t.turn.prompt, t.turn.items.length])).toEqual([
      [1, "long", DRAWN_ITEMS - 2],
      [2, "last", 2],
    ]);
    expect(drawn.turns[0]?.turn.items.at(-1)).toEqual(long[1]?.items.at(-1));
    expect(drawn.hidden).toBe(20_005 - DRAWN_ITEMS);
  });

  it("draws DRAWN_ITEMS more per press, down to the start", () => {
    let hidden = hiddenAtFirst(long);
    let presses = 0;
    while (hidden > 0) {
      hidden = showEarlier(hidden);
      presses++;
      expect(drawnItems(long, hidden)).toBe(Math.min(20_005, DRAWN_ITEMS * (presses + 1)));
    }
    expect(transcriptWindow(long, hidden).turns.map((t) => t.turn)).toEqual(long);
  });

  it("draws what a run adds after the chat was opened, and the last turn even when all of it was hidden", () => {
    const opened = [turn("long", 1_000)];
    const hidden = hiddenAtFirst(opened);
    const grown = [{ ...opened[0]!, items: [...opened[0]!.items, ...turn("x", 50).items] }];
    expect(drawnItems(grown, hidden)).toBe(DRAWN_ITEMS + 50);
    const next = [...opened, { ...newTurn("new prompt") }];
    expect(transcriptWindow(next, 1_000).turns.map((t) => [t.index, t.turn.prompt])).toEqual([
      [1, "new prompt"],
    ]);
  });

  it("keeps the cut turn the same object while it is unchanged, so it is not drawn again", () => {
    const hidden = hiddenAtFirst(long);
    const first = transcriptWindow(long, hidden).turns[0]?.turn;
    expect(transcriptWindow([...long], hidden).turns[0]?.turn).toBe(first);
  });
});
