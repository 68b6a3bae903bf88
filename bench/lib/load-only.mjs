// A floor under `lathe tools` and `lathe call read`: a process that only loads the bundle's code
// those commands load (the entry, and the engine chunk with what it imports), with the compile
// cache on as bin/lathe.mjs has it, and runs none of it. startup.bench.ts runs it as
// `node bench/lib/load-only.mjs`. Plain JavaScript, so the process costs no type stripping.
const { readdirSync } = process.getBuiltinModule("node:fs");
const { pathToFileURL } = process.getBuiltinModule("node:url");

process.getBuiltinModule("node:module").enableCompileCache?.();
const bundle = new URL("../../out/cli/", import.meta.url);
const engine = readdirSync(bundle).find((name) => /^engine-[\w-]+\.js$/.test(name));
if (!engine) throw new Error(`no engine chunk in ${bundle.pathname}: build the CLI bundle first`);
await import(new URL("lathe.js", bundle).href);
await import(pathToFileURL(new URL(engine, bundle).pathname).href);
