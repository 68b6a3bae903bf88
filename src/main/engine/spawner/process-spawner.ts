import type { ChildProcess } from "node:child_process";
import { SpawnerClient } from "./spawner-client.ts";

/**
 * The spawner's entry file. Run from the TypeScript sources (the CLI, tests), this module is a
 * `.ts` file and so is the entry beside it; in the bundles (the CLI's, electron-vite's) the entry
 * is built beside the chunk as `spawner-main.js` (see scripts/build-cli.ts, electron.vite.config.ts).
 */
export function spawnerEntry(): URL {
  return import.meta.url.endsWith(".ts")
    ? new URL("./spawner-main.ts", import.meta.url)
    : new URL("./spawner-main.js", import.meta.url);
}

/**
 * Variables that steer the Node runtime itself (preloaded modules, inspectors, coverage): the
 * host's are for the host, and a test runner's would load it into the spawner too.
 */
const NODE_STEERING = /^(NODE_OPTIONS|NODE_INSPECT\w*|NODE_V8_COVERAGE|NODE_REPL_EXTERNAL_MODULE)$/;

/** The host's environment less what steers Node (the sandbox library reads proxy settings from it). */
function spawnerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !NODE_STEERING.test(key)) env[key] = value;
  return env;
}

/**
 * Start the spawner as a Node child of this process with an IPC channel. `execArgv: []`: none of
 * the host's Node flags (a test runner's loaders, inspectors). Inside Electron, `fork` runs the
 * child as plain Node by itself. Output: none expected on stdout; stderr is the host's, for the
 * spawner's own loud failures.
 */
function forkSpawner(): ChildProcess {
  const { fork } = process.getBuiltinModule("node:child_process");
  return fork(spawnerEntry(), [], {
    execArgv: [],
    env: spawnerEnv(),
    serialization: "advanced",
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
}

/**
 * Variables that say only which folder the caller's shell is in. A spawner's processes never take
 * theirs from it (each request names its own folder and carries its own environment), so a
 * spawner serves a caller in another folder as well.
 */
const CALLERS_FOLDER = new Set(["PWD", "OLDPWD"]);

/**
 * The environment a spawner started now runs with, as text to compare: the spawner itself and
 * the sandbox library inside it use it (proxy settings, HOME, TMPDIR). A spawner started under
 * another is retired once idle (see SpawnerClient).
 */
export function spawnerEnvironment(): string {
  const env = spawnerEnv();
  for (const name of CALLERS_FOLDER) delete env[name];
  return JSON.stringify(env);
}

let client: SpawnerClient | undefined;

/**
 * The process-wide spawner: every process the engine starts for a model's or a plugin's input
 * (bash, `runtime.shell.run`, the OS sandbox's wraps) is started by it, never by this process's
 * own thread, whose fork would block the event loop for as long as copying a large process's
 * page tables takes. Started on first need; `warmSpawner()` starts it early. Started again, once
 * idle, when this process's environment has changed (see SpawnerClient).
 */
export function processSpawner(): SpawnerClient {
  client ??= new SpawnerClient(forkSpawner, spawnerEnvironment);
  return client;
}

/**
 * Start the spawner now, while this process is small (a fork's cost grows with it), and have it
 * load the terminal and sandbox libraries: for the agent when a session starts, off the path of
 * its first command. `lathe tools` or a single `read` never call it.
 */
export function warmSpawner(): void {
  processSpawner().warm();
}
