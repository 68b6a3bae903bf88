import type { Locator } from "playwright-core";

// Where things are drawn, for the UI suites' layout checks: measured boxes, not pixels of a
// screenshot.

export type Box = { x: number; y: number; width: number; height: number };

/** The element's box on the page; throws (naming the locator) when it is not drawn. */
export async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator.toString()} is not on screen`);
  return found;
}

/** How many rows `boxes` sit in: a row is the boxes whose middles lie within 14 px of each other. */
export function rowsOf(boxes: readonly Box[]): number {
  const rows: number[] = [];
  for (const b of boxes) {
    const middle = b.y + b.height / 2;
    if (!rows.some((row) => Math.abs(row - middle) < 14)) rows.push(middle);
  }
  return rows.length;
}

/** Whether two boxes cover some of the same area (touching edges, within half a pixel, do not). */
export const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width - 0.5 &&
  b.x < a.x + a.width - 0.5 &&
  a.y < b.y + b.height - 0.5 &&
  b.y < a.y + a.height - 0.5;
