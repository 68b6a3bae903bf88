#!/usr/bin/env node
// The `lathe` command: checks the Node version, then runs the CLI — the bundle in out/cli/ when it
// is built and fresh, else the TypeScript sources (Node 24 strips their types), with a one-line
// notice. See bin/cli-bundle.mjs for the choice and scripts/build-cli.ts for the bundle.

const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split(".")[0]);

if (!(major >= REQUIRED_MAJOR)) {
  process.stderr.write(
    `Lathe needs Node ${REQUIRED_MAJOR} or newer; this is Node ${process.versions.node}. ` +
      `Install Node ${REQUIRED_MAJOR} (https://nodejs.org, or \`nvm install ${REQUIRED_MAJOR}\`) and run lathe again.\n`,
  );
  process.exit(1);
}

// `lathe --version` (or -V) alone is answered here, before anything else is loaded or checked:
// the version is package.json's, beside this folder (what the engine's latheVersion reads too),
// so it costs a bare node and one file read. Every other command runs the CLI below.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { readFileSync } = process.getBuiltinModule("node:fs");
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  // A reader that has gone (`lathe --version | true`) ends it quietly, as for every command.
  process.stdout.on("error", (error) => {
    if (error.code === "EPIPE") return;
    process.stderr.write(`error: cannot write the output: ${error.message}\n`);
    process.exitCode = 1;
  });
  process.stdout.write(`${version}\n`);
} else {
  runCli();
}

/** Everything else: the CLI itself, from the bundle when it is built and fresh, else the sources. */
function runCli() {
  // Early Node 24 releases announce type stripping as experimental on every run; drop only that
  // warning so it never pollutes the CLI's output. Every other warning still goes through.
  const emitWarning = process.emitWarning.bind(process);
  process.emitWarning = (warning, ...rest) => {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && /type stripping/i.test(text)) return;
    emitWarning(warning, ...rest);
  };

  // Cache V8's compiled code between runs (in the OS temp folder): it halves the startup time.
  process.getBuiltinModule("node:module").enableCompileCache?.();

  // Stack traces are only printed with LATHE_DEBUG=1; only then map the bundle's lines to the sources.
  if (process.env.LATHE_DEBUG === "1") process.setSourceMapsEnabled(true);

  // No top-level await in this file, so even an old Node parses it and shows the message above.
  const { pathToFileURL, fileURLToPath } = process.getBuiltinModule("node:url");
  const load = (file) => import(pathToFileURL(file).href);
  import("./cli-bundle.mjs")
    .then(async ({ chooseEntry, BUNDLE_ENTRY, BUNDLE_DIR }) => {
      const { entry, notice } = chooseEntry();
      if (notice) process.stderr.write(notice);
      // The bundle's quick commands and run go to a daemon when one listens (src/main/cli/daemon/):
      // undefined means this process runs the command itself.
      if (entry === BUNDLE_ENTRY) {
        const { runInDaemon } = await load(
          process.getBuiltinModule("node:path").join(BUNDLE_DIR, "daemon-client.js"),
        );
        const code = await runInDaemon(args, fileURLToPath(import.meta.url));
        if (code !== undefined) return code;
      }
      const { main } = await load(entry);
      return main(args);
    })
    .then(
      // main() has flushed stdout and stderr; exit now rather than wait on work a stopped tool left behind.
      (code) => process.exit(code),
      (err) => {
        process.stderr.write(`error: ${process.env.LATHE_DEBUG === "1" ? err?.stack : err?.message}\n`);
        process.exit(1);
      },
    );
}
