import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ApprovalMode } from "../../src/main/engine/config/lathe-settings.ts";
import { Engine } from "../../src/main/engine/engine.ts";
import type { Envelope } from "../../src/main/engine/tools/envelope.ts";

/** The folders of a fake home (see openFakeHome), known before its engines open. */
export interface FakeHomeFolders {
  /** The temp folder holding everything (removed by close). */
  base: string;
  /** The fake home folder: HOME points here until close. */
  person: string;
  /** `$LATHE_HOME` of the contained engine: the home's `.lathe`, as by default. */
  latheHome: string;
  /** `$LATHE_HOME` of the control engine, outside the home. */
  controlHome: string;
}

export interface FakeHome extends FakeHomeFolders {
  /** An engine with the person's settings: what Lathe hides stays hidden. */
  contained: Engine;
  /** The positive control: an engine whose settings hide nothing (a `$LATHE_HOME` outside the home). */
  control: Engine;
  /** Close both engines, give HOME back and remove the temp folder. */
  close(): Promise<void>;
}

/**
 * A fake home folder for the hostile tests of what `sandbox.denyRead` hides, whose defaults lie
 * under HOME: HOME points at it (for this test file's worker) until close. `prepare` fills it
 * (keys, a project) before the two engines open on `root` (default: the home itself).
 */
export async function openFakeHome(options: {
  prefix: string;
  /** The person's settings (`$LATHE_HOME/settings.json` of the contained engine). */
  settings: object;
  /** The control engine's settings: usually the same with `"sandbox": {"denyRead": []}`. */
  controlSettings: object;
  root?: (person: string) => string;
  prepare?: (folders: FakeHomeFolders) => Promise<void>;
}): Promise<FakeHome> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), options.prefix)));
  const person = path.join(base, "person");
  const latheHome = path.join(person, ".lathe");
  const controlHome = path.join(base, "control-home");
  await mkdir(latheHome, { recursive: true });
  await mkdir(controlHome);
  await writeFile(path.join(latheHome, "settings.json"), JSON.stringify(options.settings));
  await writeFile(path.join(controlHome, "settings.json"), JSON.stringify(options.controlSettings));
  const folders = { base, person, latheHome, controlHome };
  await options.prepare?.(folders);
  const savedHome = process.env.HOME;
  process.env.HOME = person;
  const root = options.root?.(person) ?? person;
  const opened: Engine[] = [];
  const close = async (): Promise<void> => {
    for (const engine of opened) await engine.close();
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
    await rm(base, { recursive: true, force: true });
  };
  try {
    opened.push(await Engine.create({ root, latheHome, extensions: false }));
    opened.push(await Engine.create({ root, latheHome: controlHome, extensions: false }));
  } catch (err) {
    await close();
    throw err;
  }
  return { ...folders, contained: opened[0] as Engine, control: opened[1] as Engine, close };
}

/** One tool call: the tool's id and its arguments. */
export type Call = [tool: string, args: Record<string, unknown>];

/** Run calls in one fresh session of `engine` (in order), and give the last one's envelope. */
export async function runCalls(
  engine: Engine,
  calls: Call[],
  mode: ApprovalMode = "yolo",
): Promise<Envelope> {
  const session = await engine.openSession({ mode });
  try {
    let last: Envelope | undefined;
    for (const [tool, args] of calls) last = await session.call(tool, args);
    return last as Envelope;
  } finally {
    await session.close();
  }
}
