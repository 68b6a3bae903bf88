// Installed in the process spawner before it loads the sandbox library: the library's wrappers get
// sandbox-library-lookups.ts where they import `which` and ripgrep (see there for why).
import nodeModule from "node:module";

/** The library's own folder of wrappers, whose imports are redirected. */
const WRAPPERS = "/node_modules/@anthropic-ai/sandbox-runtime/dist/sandbox/";

/** What the wrappers import, by the specifier they import it with. */
const REDIRECTED = new Set(["../utils/which.js", "../utils/ripgrep.js"]);

/**
 * The lookups' module. Run from the TypeScript sources it is the `.ts` file beside this one; in
 * the bundles it is built beside the chunk as `sandbox-library-lookups.js` (see
 * scripts/build-cli.ts, electron.vite.config.ts).
 */
export function lookupsEntry(): URL {
  return import.meta.url.endsWith(".ts")
    ? new URL("./sandbox-library-lookups.ts", import.meta.url)
    : new URL("./sandbox-library-lookups.js", import.meta.url);
}

let installed = false;

/**
 * From now on, in this process, the sandbox library's wrappers import sandbox-library-lookups.ts
 * for `which` and ripgrep; every other import, and every one of other modules (the lookups' own
 * import of the library's ripgrep among them), resolves as before. Idempotent.
 */
export function redirectLibraryLookups(): void {
  if (installed) return;
  installed = true;
  // A Node without module hooks (before 22.15, as an older Electron's may be) keeps the library's
  // own lookups: a process each, the same answers. A named import would fail to load there.
  const registerHooks = (nodeModule as Partial<typeof nodeModule>).registerHooks;
  if (typeof registerHooks !== "function") return;
  const target = lookupsEntry().href;
  registerHooks({
    resolve(specifier, context, next) {
      const parent = context.parentURL;
      if (REDIRECTED.has(specifier) && parent?.startsWith("file:") && parent.includes(WRAPPERS))
        return { url: target, shortCircuit: true };
      return next(specifier, context);
    },
  });
}
