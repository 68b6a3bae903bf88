// The audit trail with calls that took minutes: "12 min 30 s" is wider than the duration's column
// (64 px), and it pushed its row's outcome badge left (800 px) or ran past the row (1280 px). The
// badges stay in one column and every duration is drawn whole, in both layouts. The rows are
// written into the served home's audit trail before `lathe serve` starts (no call takes minutes
// in a test). The page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../src/main/engine/store/audit-log.ts";
import { openDatabase } from "../../src/main/engine/store/database.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("audit, long durations");
/** Durations of different widths, recorded in this order: "999 min 59 s", "125 min 3 s", "12 min 30 s", "4.2 s", "3 ms". */
const DURATIONS = [59_999_000, 7_503_000, 750_000, 4_200, 3];

let page: Page;

const world = useUiWorld(
  runUi,
  {
    prefix: "audit-long-duration",
    prepare: async ({ root, home }) => {
      const db = openDatabase(path.join(home, "lathe.db"));
      try {
        const log = new AuditLog(db);
        const now = Date.now();
        for (const [index, durationMs] of DURATIONS.entries()) {
          log.record({
            callId: `call-${index}`,
            sessionId: "s-long",
            root,
            toolId: "bash",
            originLayer: "builtin",
            originKind: "builtin",
            originName: null,
            descriptorHash: null,
            argsJson: JSON.stringify({ command: `make step-${index}` }),
            decisionsJson: "[]",
            outcome: index === 1 ? "error" : "output",
            envelopeHead: "{}",
            durationMs,
            startedAt: now - 60_000 * (DURATIONS.length - index),
          });
        }
        log.flush();
      } finally {
        db.close();
      }
    },
    viewport: { width: 800, height: 700 },
  },
  (started) => {
    page = started.page;
  },
);

/** Each row's outcome badge and duration, as drawn: where the badge ends, the duration's text, whether it is whole, its height. */
async function columns(): Promise<{
  badgeRights: number[];
  durations: string[];
  whole: boolean[];
  heights: number[];
}> {
  const rows = page.getByRole("list", { name: "Calls" }).getByRole("listitem");
  const badgeRights: number[] = [];
  const whole: boolean[] = [];
  const heights: number[] = [];
  for (const row of await rows.all()) {
    const badge = await row.getByLabel("Outcome").boundingBox();
    const duration = row.locator(".audit-duration");
    const durationBox = await duration.boundingBox();
    const rowBox = await row.boundingBox();
    if (!badge || !durationBox || !rowBox) throw new Error("a row is not on screen");
    badgeRights.push(Math.round(badge.x + badge.width));
    heights.push(Math.round(durationBox.height));
    // Drawn whole: not cut, after the badge, inside the row.
    whole.push(
      (await duration.evaluate((el) => el.scrollWidth <= el.clientWidth)) &&
        durationBox.x >= badge.x + badge.width &&
        durationBox.x + durationBox.width <= rowBox.x + rowBox.width,
    );
  }
  return { badgeRights, durations: await rows.locator(".audit-duration").allInnerTexts(), whole, heights };
}

describe.skipIf(!runUi)("the audit trail with calls that took minutes", () => {
  it.each([800, 1280])("keeps the outcomes in one column at %i px, every duration whole", async (width) => {
    await page.setViewportSize({ width, height: 700 });
    await goTo(page, "Audit");
    const rows = page.getByRole("list", { name: "Calls" }).getByRole("listitem");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(DURATIONS.length);
    await page.screenshot({ path: path.join(SHOTS, `ui-audit-long-duration-${width}.png`) });
    const { badgeRights, durations, whole, heights } = await columns();
    // Newest first: the last one recorded.
    expect(durations).toEqual(["3 ms", "4.2 s", "12 min 30 s", "125 min 3 s", "999 min 59 s"]);
    expect(new Set(badgeRights).size, `${durations.join(" / ")}: ${badgeRights.join(", ")}`).toBe(1);
    expect(whole).toEqual(DURATIONS.map(() => true));
    // Each on one line, as tall as "3 ms".
    expect(new Set(heights).size, heights.join(", ")).toBe(1);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
