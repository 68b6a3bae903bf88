import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planBashCommand } from "../builtin/bash-plan.ts";
import { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import type { ResolvedPlan } from "../tools/call-plan.ts";
import { hiddenPathNamed } from "./hidden-paths.ts";
import { MAX_ENTRIES_SEEN } from "./mentioned-paths.ts";

let base: string;
let ws: string;
let secrets: string;
let latheHome: string;
let sidecars: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-hidden-paths-")));
  ws = path.join(base, "ws");
  secrets = path.join(base, "secrets");
  latheHome = path.join(base, "home");
  sidecars = path.join(latheHome, "sessions", "s1", "sidecars");
  await mkdir(ws);
  await mkdir(secrets);
  await mkdir(sidecars, { recursive: true });
  await mkdir(path.join(latheHome, "models"));
  await writeFile(path.join(secrets, "key"), "k");
  await writeFile(path.join(sidecars, "out.txt"), "o");
  await symlink(path.join(secrets, "key"), path.join(ws, "innocent.txt"));
  await mkdir(path.join(secrets, "inner"));
  await symlink(path.join(secrets, "inner"), path.join(ws, "link-dir"));
  await symlink(base, path.join(ws, "up-link"));
  await mkdir(path.join(ws, "sub-dir/private"), { recursive: true });
  await mkdir(path.join(base, "plain"));
  await symlink(path.join(base, "plain"), path.join(ws, "ok-link"));
  // More entries than the globs of one call may look at.
  await mkdir(path.join(ws, "many"));
  for (let i = 0; i <= MAX_ENTRIES_SEEN; i += 1000)
    await Promise.all(
      Array.from({ length: 1000 }, (_, j) => writeFile(path.join(ws, "many", `f${i + j}`), "")),
    );
});

afterAll(() => rm(base, { recursive: true, force: true }));

/** The plan as the policy has it after the capability check (only shell.run matters here). */
function decided(command: string): { plan: ReturnType<typeof planBashCommand>; resolved: ResolvedPlan } {
  const plan = planBashCommand(command);
  const accesses = plan.accesses.flatMap((a) =>
    a.capability === "shell.run"
      ? [{ capability: "shell.run" as const, command: a.command, text: command }]
      : [],
  );
  return { plan, resolved: { accesses } };
}

const check = (command: string) => {
  const { plan, resolved } = decided(command.replaceAll("SECRETS", secrets).replaceAll("HOME", latheHome));
  return hiddenPathNamed(
    plan,
    resolved,
    ws,
    HiddenPathSet.of({ denyRead: [secrets], latheHome, readable: [sidecars], settingsFile: "settings.json" }),
  );
};

describe("hiddenPathNamed: what a command names that the sandbox hides", () => {
  it.each([
    ["a denyRead folder's file", "cat SECRETS/key", "denyRead"],
    ["the denyRead folder itself", "ls SECRETS", "denyRead"],
    ["a glob into it", "cat SECRETS/k*", "denyRead"],
    ["a workspace symlink into it", "cat innocent.txt", "denyRead"],
    ["a symlink's parent, as the kernel reads it", "cat link-dir/../key", "denyRead"],
    ["an option's value", "grep --file=SECRETS/key x", "denyRead"],
    ["Lathe's database", "sqlite3 HOME/lathe.db .dump", "lathe-home"],
    ["another session's files", "cat HOME/sessions/s2/sidecars/x.txt", "lathe-home"],
    ["a file Lathe has not made yet", "cat HOME/checkpoints/blobs/x", "lathe-home"],
    ["the list of recent folders", "cat HOME/recent-projects.json", "lathe-home"],
  ])("names %s", async (_what, command, hiddenBy) => {
    expect(await check(command)).toMatchObject({ hiddenBy });
  });

  it.each([
    ["a workspace file", "cat notes.txt"],
    ["the session's own sidecar file", "wc -l HOME/sessions/s1/sidecars/out.txt"],
    ["a path only known at run time", 'F=SECRETS/key; cat "$F"'],
    ["a name that only starts like the folder", "cat SECRETS-old/key"],
    ["$LATHE_HOME itself (its public folders show)", "ls HOME"],
    ["a public folder of $LATHE_HOME", "ls HOME/models"],
  ])("leaves %s alone", async (_what, command) => {
    expect(await check(command)).toBeUndefined();
  });

  // Past the budget a glob goes unexpanded: what it would have matched was never checked, and
  // with no sandbox nothing else hides it (`cat many/* innocent.tx?` printed the key).
  it.each([
    ["a glob after one that used up what Lathe looks at", "cat many/* innocent.tx?"],
    ["a glob that uses it up itself", "cat many/*/../../innocent.tx?"],
  ])("refuses %s, saying it could not check", async (_what, command) => {
    expect(await check(command)).toMatchObject({ cut: expect.stringContaining("many/*") });
  });

  // grep -r follows a link it is given: a link to a folder holding a hidden one reads it.
  it.each([
    ["grep -r", "grep -r x up-link"],
    ["rg", "rg x up-link/"],
    ["grep -r after cd", "cd . && grep -rn x up-link"],
  ])("refuses %s of a link to a folder holding hidden paths", async (_what, command) => {
    expect(await check(command)).toMatchObject({ folder: expect.stringMatching(/up-link/) });
  });

  it.each([
    ["a link read as one file", "cat up-link"],
    ["a link to a folder with nothing hidden, read whole", "grep -r x ok-link"],
    ["the workspace read whole", "grep -r x ."],
  ])("leaves %s alone", async (_what, command) => {
    expect(await check(command)).toBeUndefined();
  });

  // With no sandbox, what hides a folder inside the workspace is the policy alone.
  const unconfined = (command: string, denyRead: string[]) => {
    const { plan, resolved } = decided(command);
    const set = HiddenPathSet.of({ denyRead, latheHome, readable: [], settingsFile: "settings.json" });
    return hiddenPathNamed(plan, resolved, ws, set, true);
  };
  it.each([["grep -r x ."], ["grep -r x"], ["rg x"], ["cd sub-dir && grep -rn x"]])(
    "refuses %s, unconfined, when the workspace holds a hidden folder",
    async (command) => {
      expect(await unconfined(command, [path.join(ws, "sub-dir/private")])).toMatchObject({
        folder: expect.stringContaining(ws),
      });
      // With a sandbox it hides the folder itself: the command runs.
      const { plan, resolved } = decided(command);
      const set = HiddenPathSet.of({
        denyRead: [path.join(ws, "sub-dir/private")],
        latheHome,
        readable: [],
        settingsFile: "settings.json",
      });
      expect(await hiddenPathNamed(plan, resolved, ws, set)).toBeUndefined();
    },
  );

  it("leaves a folder read whole alone, unconfined, when nothing below it is hidden", async () => {
    expect(await unconfined("grep -r x sub-dir", [secrets])).toBeUndefined();
  });

  it("does not count a glob that matched within the budget as cut", async () => {
    expect(await check("wc -l no*.txt")).toBeUndefined();
  });

  it("looks only at plans that start a process", async () => {
    const plan = { accesses: [], unclear: [], mentions: [{ text: path.join(secrets, "key"), glob: false }] };
    expect(
      await hiddenPathNamed(
        plan,
        { accesses: [] },
        ws,
        HiddenPathSet.of({ denyRead: [secrets], latheHome, readable: [], settingsFile: "settings.json" }),
      ),
    ).toBeUndefined();
  });
});
