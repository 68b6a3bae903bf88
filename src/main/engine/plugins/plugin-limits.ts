/** The limits every plugin runs under; docs/plugins.md lists them for authors. */
export const PLUGIN_LIMITS = {
  /** Heap of one plugin's isolate, in MB (a tool.yaml may lower it with `limits.memoryMb`). */
  memoryMb: 64,
  /** The smallest heap isolated-vm accepts. */
  minMemoryMb: 8,
  /** Default wall-clock budget of one call (`timeoutMs` in tool.yaml). */
  timeoutMs: 30_000,
  minTimeoutMs: 100,
  maxTimeoutMs: 600_000,
  /**
   * How much longer the pipeline waits for a plugin call than its `timeoutMs`: the isolate's own
   * watchdog stops it first and says what happened (its isolate was restarted), rather than the
   * pipeline's generic timeout.
   */
  stopGraceMs: 2_000,
  /** CPU budget of the module's top-level code when the isolate starts. */
  startCpuMs: 1_000,
  /** Size of tool.yaml. */
  yamlBytes: 256 * 1024,
  /** Size of the entry file: plugins are small, self-contained modules. */
  entryBytes: 1024 * 1024,
  /** Size of TOOL.md, which the model reads with every request. */
  toolMdBytes: 16 * 1024,
  /** `runtime.fs.readText` refuses larger files. */
  readBytes: 8 * 1024 * 1024,
  /** `runtime.fs.writeText` refuses text longer than this (as UTF-8). */
  writeBytes: 8 * 1024 * 1024,
  /**
   * Requests of one plugin's `runtime` carried out at once, per family, and how many more may
   * wait for a turn; past that a request is refused ("await some before starting more").
   */
  bridge: {
    fs: { active: 4, queued: 256 },
    net: { active: 4, queued: 256 },
    shell: { active: 4, queued: 256 },
  },
  /** `runtime.fs.list` returns at most this many entries. */
  listEntries: 10_000,
  /** `runtime.net.fetch` keeps at most this much of a response body. */
  fetchBytes: 5 * 1024 * 1024,
  /** `runtime.shell.run`: output kept and wall-clock budget of one command. */
  shellOutputBytes: 1024 * 1024,
  shellTimeoutMs: 120_000,
  /** `runtime.log`: characters per line, lines per call, lines kept per plugin for `status()`. */
  logLineChars: 2_000,
  logLinesPerCall: 200,
  logLinesKept: 200,
  /** A returned value larger than this (as JSON) is refused. */
  resultBytes: 8 * 1024 * 1024,
  /** What the model sees of a large result; the rest goes to a sidecar file. */
  resultHeadBytes: 200 * 1024,
  /** Debounce of folder changes before they are queued for the next turn boundary. */
  watchDebounceMs: 100,
} as const;
