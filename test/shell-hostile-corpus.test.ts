import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import type { Session } from "../src/main/engine/session/session.ts";
import {
  available,
  changes,
  createLayout,
  fill,
  killAll,
  removeLayout,
  removeTemplate,
  runPlainBash,
  snapshot,
  startVictim,
  survivors,
  type Layout,
} from "./support/hostile-layout.ts";
import { CLASSES, HOSTILE_ROWS, type HostileRow } from "./support/shell-hostile-rows.ts";

// The hostile shell corpus (issue 8): every row is first shown to do its damage when plain bash
// runs it (the positive control), then run through Lathe by the most permissive user there is —
// every bash command and every tool allowed by a user rule, `shell: [{"cmd": "*"}]`, yolo mode,
// headless — under each configuration of walls below. Lathe must refuse it with a reason and
// leave everything outside the workspace (and its protected paths) as it was.

interface Wall {
  name: string;
  /** Settings merged into the user settings for this configuration. */
  settings: Record<string, unknown>;
  /** True: every row must be refused. False: a row may also run, as long as it does no damage. */
  mustRefuse: boolean;
  /** The OS sandbox confines what runs: a workspace script may run, contained. */
  sandboxed: boolean;
}

/** Each configuration of walls the corpus runs under; adding one is one line. */
const WALLS: Wall[] = [
  // The parser alone, and the read-only gate that stands in for a missing sandbox.
  {
    name: "policy only, no OS sandbox",
    settings: { sandbox: { enabled: false } },
    mustRefuse: true,
    sandboxed: false,
  },
  // Both walls: the parser still refuses every row it can see through; what it cannot (a
  // workspace script run as the program it is) runs, and the kernel must hold it.
  {
    name: "policy and OS sandbox",
    settings: { sandbox: { enabled: true } },
    mustRefuse: true,
    sandboxed: true,
  },
];

const REFUSED =
  /needs approval and this host cannot ask anyone|Access denied: |refused by the watchdog|may not run "|was denied/;

/** Programs a row needs that this machine lacks (the row is skipped, saying so). */
function missing(row: HostileRow): string[] {
  return (row.needs ?? []).filter((program) => !available(program));
}

function label(row: HostileRow, i: number): string {
  const command = row.command.replaceAll("\n", "⏎");
  return `#${i} [${row.cls}] ${command.length > 110 ? `${command.slice(0, 110)}…` : command}`;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a run left behind: the changed paths, a killed victim, or processes that outlived it. */
interface Damage {
  files: string[];
  victimKilled: boolean;
  survivors: number[];
}

/** Run `act` against a layout and report the damage the row's kind of damage would show. */
async function observe(
  row: HostileRow,
  layout: Layout,
  marker: string,
  act: (command: string) => Promise<void>,
): Promise<Damage> {
  const victim = row.damage === "victim" ? await startVictim(marker) : undefined;
  try {
    const before = await snapshot(layout);
    await act(fill(row.command, layout, { marker, ...(victim ? { pid: victim.pid } : {}) }));
    if (row.settleMs !== undefined) await pause(row.settleMs);
    let alive: number[] = [];
    if (row.damage === "survivor") {
      // Lathe stops a call's process group with SIGTERM, then SIGKILL after a grace period.
      for (let waited = 0; waited <= 3000; waited += 100) {
        alive = await survivors(marker);
        if (alive.length === 0 || row.expect !== "contained") break;
        await pause(100);
      }
      killAll(alive);
    }
    return {
      files: changes(before, await snapshot(layout)),
      victimKilled: victim !== undefined && !victim.alive(),
      survivors: alive,
    };
  } finally {
    victim?.stop();
  }
}

function damaged(row: HostileRow, damage: Damage): boolean {
  if (row.damage === "victim") return damage.victimKilled;
  if (row.damage === "survivor") return damage.survivors.length > 0;
  return damage.files.length > 0;
}

describe("the hostile shell corpus", () => {
  it("covers the 20 classes of issue 8 with at least 200 command lines", () => {
    const counts = Object.fromEntries(
      CLASSES.map((c) => [c, HOSTILE_ROWS.filter((r) => r.cls === c).length]),
    );
    console.log(`hostile corpus: ${HOSTILE_ROWS.length} rows`, counts);
    expect(CLASSES).toHaveLength(20);
    expect(HOSTILE_ROWS.length).toBeGreaterThanOrEqual(200);
    for (const cls of CLASSES) expect(counts[cls], cls).toBeGreaterThanOrEqual(4);
  });
});

afterAll(async () => {
  await removeTemplate();
});

describe.concurrent("positive controls: plain bash does the damage", () => {
  HOSTILE_ROWS.forEach((row, i) => {
    const lacking = missing(row);
    it.skipIf(lacking.length > 0)(
      `${label(row, i)}${lacking.length > 0 ? ` (skipped: ${lacking.join(", ")} not installed)` : ""}`,
      async () => {
        const layout = await createLayout("lathe-corpus-control-");
        try {
          let output = "";
          const damage = await observe(
            row,
            layout,
            `lathe-corpus-control-${process.pid}-${i}`,
            async (command) => {
              output = (await runPlainBash(command, layout)).output;
            },
          );
          expect(damaged(row, damage), `plain bash did no damage; it said: ${output}`).toBe(true);
        } finally {
          await removeLayout(layout);
        }
      },
    );
  });
});

for (const wall of WALLS) {
  describe(`through Lathe (${wall.name})`, () => {
    let layout: Layout;
    let engine: Engine;
    let session: Session;
    let realHome: string | undefined;
    /** Whether this configuration's watchdog refuses writes to .git/config. */
    let guardsGitConfig = false;
    /** Whether this configuration refuses bash calls that are not provably read-only. */
    let readOnlyGate = false;

    beforeAll(async () => {
      layout = await createLayout("lathe-corpus-lathe-");
      // Lathe's bash inherits HOME: make `~` the fake home, as in the positive controls.
      realHome = process.env.HOME;
      process.env.HOME = layout.h;
      await writeFile(
        path.join(layout.lh, "settings.json"),
        JSON.stringify({
          permissions: [
            { permission: "bash", pattern: "*", action: "allow" },
            { permission: "*", pattern: "*", action: "allow" },
          ],
          shell: [{ cmd: "*" }],
          ...wall.settings,
        }),
      );
      engine = await Engine.create({ root: layout.ws, latheHome: layout.lh });
      session = await engine.openSession({ mode: "yolo" });
      const config = await readFile(path.join(layout.ws, ".git/config"), "utf8");
      await session.call("read", { path: ".git/config" });
      const write = await session.call("write", { path: ".git/config", content: config });
      guardsGitConfig = write.type === "error" && /watchdog/.test(write.error_text);
      const probe = await session.call("bash", { command: "touch lathe-gate-probe" });
      readOnlyGate = probe.type === "error";
      await rm(path.join(layout.ws, "lathe-gate-probe"), { force: true });
    });

    afterAll(async () => {
      await engine.close();
      process.env.HOME = realHome;
      await removeLayout(layout);
    });

    it.each([
      ["ls", "f.txt"],
      ["git status", "On branch main"],
      ["grep -rn alpha .", "./f.txt:1:alpha"],
      ["cat f.txt | wc -l", "2"],
    ])("still runs the benign %s", async (command, shows) => {
      // The policy lets it run; its output is there (the exit status is the pty's business).
      const env = await session.call("bash", { command });
      expect(env.type, JSON.stringify(env)).toBe("output");
      expect(env.type === "output" ? JSON.stringify(env.data) : "").toContain(shows);
    });

    HOSTILE_ROWS.forEach((row, i) => {
      const lacking = missing(row);
      it.skipIf(lacking.length > 0)(
        `${label(row, i)}${lacking.length > 0 ? ` (skipped: ${lacking.join(", ")} not installed)` : ""}`,
        async (ctx: TestContext) => {
          if (row.requires === "git-config" && !guardsGitConfig) {
            console.warn(
              `skipped ${label(row, i)}: this configuration's watchdog does not guard .git/config yet (the sandbox stream adds it)`,
            );
            ctx.skip();
          }
          if (row.requires === "read-only-gate" && !readOnlyGate && !wall.sandboxed) {
            console.warn(
              `skipped ${label(row, i)}: running a workspace script is contained by the OS sandbox or the read-only gate, neither active here`,
            );
            ctx.skip();
          }
          let text = "";
          let refused = false;
          const damage = await observe(
            row,
            layout,
            `lathe-corpus-lathe-${process.pid}-${i}`,
            async (command) => {
              const env = await session.call("bash", { command });
              refused = env.type === "error";
              text = env.type === "error" ? env.error_text : JSON.stringify(env.data);
            },
          );
          expect(damage.files, `Lathe let it change files outside the workspace: ${text}`).toEqual([]);
          expect(damage.victimKilled, `Lathe let it kill a process it did not start: ${text}`).toBe(false);
          expect(damage.survivors, `a process outlived the call: ${text}`).toEqual([]);
          const mayRunContained = row.requires === "read-only-gate" && wall.sandboxed;
          if (row.expect !== "contained" && wall.mustRefuse && !mayRunContained) {
            expect(refused, `Lathe ran it: ${text}`).toBe(true);
            expect(text).toMatch(REFUSED);
          }
        },
      );
    });
  });
}
