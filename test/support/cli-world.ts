import { lstat, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import {
  startOpenAICompatibleServer,
  type FixtureOptions,
  type FixtureServer,
} from "../fixtures/openai-compatible-server.ts";
import { runLathe, type Run, type RunOptions } from "./lathe-cli.ts";
import { startLathe, useEndpoint, type LatheProcess } from "./lathe-process.ts";

/**
 * What a CLI test runs `lathe` in: a temp `LATHE_HOME` and a workspace beside it (both canonical
 * paths), and the loopback fixture model servers the test started. Read its fields inside a test
 * or a hook: the world exists only between the set-up and the tear-down `useCliWorld` registers.
 */
export interface CliWorld {
  /** The temp folder holding the home and the workspace (removed at tear-down). */
  readonly base: string;
  /** `$LATHE_HOME` of every run: `<base>/home`. */
  readonly home: string;
  /** The workspace the CLI runs in (its working directory): `<base>/ws`. */
  readonly root: string;
  /** Make a folder `<base>/<name>` beside the home and the workspace (another project), and give its path. */
  folder(name: string): Promise<string>;
  /** `lathe <args>` to completion, in the workspace with this home; `options` may change either. */
  lathe(args: readonly string[], options?: Partial<RunOptions>): Promise<Run>;
  /** `lathe <args>` as a process the test watches, signals or kills. */
  start(args: readonly string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv }): LatheProcess;
  /**
   * Start a fixture model server (closed at tear-down) and, unless `endpoint` is false, point the
   * openai-compatible provider of the home's settings.json at it, with `endpoint`'s extra fields.
   */
  serve(
    fixture: FixtureOptions,
    options?: { endpoint?: Record<string, unknown> | false },
  ): Promise<FixtureServer>;
}

export interface CliWorldOptions {
  /** "test" (the default): a fresh world for every test; "file": one world for all of them. */
  per?: "test" | "file";
  /** Fill the new world (workspace files, settings) before the tests use it. */
  setup?: (world: CliWorld) => Promise<void>;
}

interface Folders {
  base: string;
  home: string;
  root: string;
}

/** `<tmp>/<prefix>XXXXXX` (its canonical path) with `home` and `ws` in it. */
async function makeFolders(prefix: string): Promise<Folders> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  const home = path.join(base, "home");
  const root = path.join(base, "ws");
  await mkdir(home, { recursive: true });
  await mkdir(root, { recursive: true });
  return { base, home, root };
}

/**
 * The machine's sandbox check as the last world of this test file left it in its home
 * (`cache/sandbox-availability.json`), handed to the next world's home. The check starts a real
 * sandbox (0.25 to 0.5 s of every test's first command); Lathe keeps its answer under a key of
 * the machine (where bwrap, socat and rg are, the kernel's settings, the boot), so a command whose
 * machine differs (another PATH) checks again. The first world of a file still checks.
 */
let machineCheck: string | undefined;
const MACHINE_CHECK = path.join("cache", "sandbox-availability.json");

async function keepMachineCheck(home: string): Promise<void> {
  const file = path.join(home, MACHINE_CHECK);
  const found = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  });
  // No command of the world reached the check (or a test put something else there): the last
  // one kept stays.
  if (found?.isFile()) machineCheck = await readFile(file, "utf8");
}

async function handMachineCheck(home: string): Promise<void> {
  if (machineCheck === undefined) return;
  await mkdir(path.join(home, "cache"), { mode: 0o700 });
  await writeFile(path.join(home, MACHINE_CHECK), machineCheck, { mode: 0o600, flag: "wx" });
}

class NoWorld extends Error {
  constructor(field: string) {
    super(`The CLI world's ${field} was read outside a test: useCliWorld sets it up in a hook.`);
    this.name = "NoWorld";
  }
}

/**
 * One temp CLI world for each test (or one for the whole file or describe block), set up and torn
 * down by Vitest hooks registered where this is called. Call it before the file's own hooks, so
 * they find the world made.
 */
export function useCliWorld(prefix: string, options: CliWorldOptions = {}): CliWorld {
  let folders: Folders | undefined;
  let servers: FixtureServer[] = [];
  const made = (field: string): Folders => {
    if (folders === undefined) throw new NoWorld(field);
    return folders;
  };
  const world: CliWorld = {
    get base() {
      return made("base").base;
    },
    get home() {
      return made("home").home;
    },
    get root() {
      return made("root").root;
    },
    async folder(name) {
      const dir = path.join(world.base, name);
      await mkdir(dir, { recursive: true });
      return dir;
    },
    lathe: (args, runOptions = {}) => runLathe(args, { home: world.home, cwd: world.root, ...runOptions }),
    start: (args, startOptions = {}) =>
      startLathe(args, { home: world.home, cwd: startOptions.cwd ?? world.root, env: startOptions.env }),
    async serve(fixture, serveOptions = {}) {
      const server = await startOpenAICompatibleServer(fixture);
      servers.push(server);
      if (serveOptions.endpoint !== false)
        await useEndpoint(world.home, server.baseURL, serveOptions.endpoint ?? {});
      return server;
    },
  };
  const setUp = async (): Promise<void> => {
    folders = await makeFolders(prefix);
    await handMachineCheck(folders.home);
    await options.setup?.(world);
  };
  const tearDown = async (): Promise<void> => {
    const started = servers;
    servers = [];
    for (const server of started) await server.close();
    if (folders) {
      await keepMachineCheck(folders.home);
      await rm(folders.base, { recursive: true, force: true });
    }
    folders = undefined;
  };
  if (options.per === "file") {
    beforeAll(setUp);
    afterAll(tearDown);
  } else {
    beforeEach(setUp);
    afterEach(tearDown);
  }
  return world;
}
