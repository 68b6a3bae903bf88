import { resolve } from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig } from "electron-vite";
import type { Plugin } from "vite";

/**
 * The renderer's Content-Security-Policy, added to the built page only (the dev server needs inline
 * scripts). Scripts stay 'self' only; styles allow inline because xterm.js (the bash cards'
 * terminal) writes its cell sizes and colours into <style> elements and style attributes.
 */
const RENDERER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'";

function contentSecurityPolicy(): Plugin {
  return {
    name: "lathe:content-security-policy",
    apply: "build",
    transformIndexHtml: () => [
      {
        tag: "meta",
        attrs: { "http-equiv": "Content-Security-Policy", content: RENDERER_CSP },
        injectTo: "head-prepend",
      },
    ],
  };
}

export default defineConfig({
  main: {
    build: {
      outDir: "out/main",
      // Dependencies (better-sqlite3, node-pty, ...) stay in node_modules, loaded at run time.
      externalizeDeps: true,
      rolldownOptions: {
        input: {
          main: resolve("src/main/electron/main.ts"),
          // The offload pool's worker threads load this file beside main.js (see offload.ts).
          "offload-worker": resolve("src/main/engine/offload/offload-worker.ts"),
          // The process spawner's child runs this file beside main.js (see process-spawner.ts).
          "spawner-main": resolve("src/main/engine/spawner/spawner-main.ts"),
          // The sandbox library's wrappers import this file in the spawner (sandbox-library-hooks.ts).
          "sandbox-library-lookups": resolve("src/main/engine/sandbox/sandbox-library-lookups.ts"),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: "out/preload",
      // A sandboxed preload cannot require packages: bundle everything into one CommonJS file.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve("src/preload/index.ts") },
        output: { format: "cjs", entryFileNames: "[name].cjs" },
      },
    },
  },
  renderer: {
    root: resolve("src/renderer"),
    plugins: [react(), contentSecurityPolicy()],
    build: {
      outDir: resolve("out/renderer"),
      rolldownOptions: { input: resolve("src/renderer/index.html") },
    },
  },
});
