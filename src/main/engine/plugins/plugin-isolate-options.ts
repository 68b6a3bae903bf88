import { runtimeShape } from "./isolate-bootstrap.ts";
import type { IsolateHostOptions } from "./isolate-host.ts";
import type { PluginManifest } from "./plugin-manifest.ts";
import { entryUrl, type PluginSource } from "./plugin-source.ts";

/** The isolate a plugin runs in, as its manifest sets it up: the loader and `lathe plugin check` alike. */
export function pluginIsolateOptions(
  manifest: PluginManifest,
  source: PluginSource,
  onLog: IsolateHostOptions["onLog"],
): IsolateHostOptions {
  return {
    name: manifest.name,
    source: source.entry.text as string,
    filename: entryUrl(source.entry.file),
    shape: runtimeShape(manifest.requires),
    memoryMb: manifest.memoryMb,
    // WebAssembly, when declared, gets a budget as large as the heap, counted separately.
    wasmMb: manifest.wasm ? manifest.memoryMb : 0,
    cpuTimeoutMs: manifest.cpuMs,
    onLog,
  };
}
