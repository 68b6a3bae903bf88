import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { breachMessage, guardMounts, type GuardedPath, type MountBreach } from "./mount-guard.ts";

let base: string;
let stops: Array<() => void>;

beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "lathe-mount-guard-"));
  mkdirSync(path.join(base, "ws/.git"), { recursive: true });
  writeFileSync(path.join(base, "ws/.git/config"), "[core]\n");
  writeFileSync(path.join(base, "secret"), "old\n");
  stops = [];
});

afterEach(() => {
  for (const stop of stops) stop();
  rmSync(base, { recursive: true, force: true });
});

const config = (): string => path.join(base, "ws/.git/config");

/** Guard `paths`; the breaches seen, as they come. */
function guard(paths: GuardedPath[]): MountBreach[] {
  const seen: MountBreach[] = [];
  stops.push(guardMounts(paths, (breach) => seen.push(breach), [path.join(base, "ws")]));
  return seen;
}

const held = (file: string, what = "git's configuration"): GuardedPath => ({
  path: file,
  what,
  held: "present",
});

async function settle(ms = 100): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Wait (at most 3 s) until `seen` has a breach. */
async function firstBreach(seen: MountBreach[]): Promise<MountBreach> {
  const until = Date.now() + 3000;
  while (seen.length === 0 && Date.now() < until) await settle(5);
  expect(seen.length, "a breach was seen").toBe(1);
  return seen[0] as MountBreach;
}

describe("guardMounts", () => {
  it.each<{ name: string; change: () => void; expected: MountBreach["change"] }>([
    {
      name: "a new file renamed over it (git config)",
      change: () => {
        writeFileSync(`${config()}.lock`, "[core]\n\tbare = false\n");
        renameSync(`${config()}.lock`, config());
      },
      expected: "replaced",
    },
    { name: "it removed", change: () => rmSync(config()), expected: "removed" },
    {
      name: "its folder renamed away and made again (the .git above it)",
      change: () => {
        renameSync(path.join(base, "ws/.git"), path.join(base, "ws/.git-old"));
        mkdirSync(path.join(base, "ws/.git"));
        writeFileSync(config(), "[core]\n");
      },
      expected: "replaced",
    },
    {
      name: "its folder renamed away",
      change: () => renameSync(path.join(base, "ws/.git"), path.join(base, "ws/.git-old")),
      expected: "removed",
    },
  ])("sees $name at once", async ({ change, expected }) => {
    const seen = guard([held(config())]);
    await settle();
    const started = Date.now();
    change();
    const breach = await firstBreach(seen);
    expect(breach).toEqual({ path: config(), what: "git's configuration", change: expected });
    // The file-system event, not the poll every second.
    expect(Date.now() - started).toBeLessThan(500);
    await settle(1200);
    expect(seen, "said once").toHaveLength(1);
  });

  it("sees git rewrite its config twice in a row, though the second file gets the first one's inode back", async () => {
    /** What git does: a lock file written, then renamed over the config. */
    const rewrite = (text: string): void => {
      writeFileSync(`${config()}.lock`, text);
      renameSync(`${config()}.lock`, config());
    };
    // Find a start from which two rewrites give the inode number back (ext4 hands a freed one
    // out again at once): the control that a number alone cannot tell the files apart.
    let reused = false;
    for (let attempt = 0; attempt < 20 && !reused; attempt++) {
      const before = lstatSync(config()).ino;
      const seen = guard([held(config())]);
      rewrite("[core]\n\tbare = false\n");
      rewrite("[core]\n\tbare = true\n");
      reused = lstatSync(config()).ino === before;
      if (!reused) continue;
      expect((await firstBreach(seen)).change).toBe("replaced");
    }
    if (!reused) console.log("not checked: this file system gave no inode number back in 20 tries");
  });

  it("sees a protected file missing at the start appear", async () => {
    rmSync(config());
    const seen = guard([{ path: config(), what: "git's configuration", held: "absent" }]);
    await settle();
    writeFileSync(config(), "[core]\n");
    expect((await firstBreach(seen)).change).toBe("created");
  });

  it("leaves alone what does not change the mount: in-place writes, other names, other folders", async () => {
    const seen = guard([held(config()), held(path.join(base, "secret"), "a hidden path")]);
    await settle();
    appendFileSync(config(), "\tbare = false\n");
    writeFileSync(path.join(base, "secret"), "rewritten in place\n");
    writeFileSync(path.join(base, "ws/.git/HEAD.lock"), "ref: refs/heads/main\n");
    renameSync(path.join(base, "ws/.git/HEAD.lock"), path.join(base, "ws/.git/HEAD"));
    writeFileSync(path.join(base, "ws/.git/configuration"), "x");
    rmSync(path.join(base, "ws/.git/configuration"));
    mkdirSync(path.join(base, "ws/src"));
    renameSync(path.join(base, "ws/src"), path.join(base, "ws/lib"));
    await settle(1300);
    expect(seen).toEqual([]);
  });

  it("ignores a path held as present that is already gone, and one held as absent that exists", async () => {
    const seen = guard([
      held(path.join(base, "ws/.gitmodules")),
      { path: config(), what: "git's configuration", held: "absent" },
    ]);
    writeFileSync(path.join(base, "ws/.gitmodules"), "");
    rmSync(config());
    await settle(1300);
    expect(seen).toEqual([]);
  });

  it("says nothing once stopped", async () => {
    const seen: MountBreach[] = [];
    const stop = guardMounts([held(config())], (breach) => seen.push(breach));
    stop();
    rmSync(config());
    await settle(1300);
    expect(seen).toEqual([]);
  });
});

describe("breachMessage", () => {
  it("names the path (relative to the workspace), what it is, what happened and what to do", () => {
    const message = breachMessage(
      { path: path.join(base, "ws/.git/config"), what: "git's configuration", change: "replaced" },
      path.join(base, "ws"),
    );
    expect(message).toMatch(
      /^\.git\/config \(git's configuration\) was replaced outside the sandbox while it ran/,
    );
    expect(message).toContain("run it again");
    expect(
      breachMessage({ path: "/home/p/.aws/credentials", what: "a hidden path", change: "removed" }),
    ).toMatch(/^\/home\/p\/\.aws\/credentials \(a hidden path\) was removed or renamed/);
  });
});
