import { mkdtempSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ownIdentity } from "./process-start.ts";
import { ownedTempPrefix } from "./temp-folder-name.ts";

/**
 * A fresh folder in the OS temp folder for what this process runs, named after `label` and this
 * process (temp-folder-name.ts), so that if the process dies without removing it (kill -9, a
 * crash, a power cut) a later run sweeps it. The caller removes it when done.
 */
export function makeOwnedTempDir(label: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), ownedTempPrefix(label, ownIdentity())));
}

/** makeOwnedTempDir, for a process's start-up before anything else runs (the spawner's). */
export function makeOwnedTempDirSync(label: string): string {
  return mkdtempSync(path.join(os.tmpdir(), ownedTempPrefix(label, ownIdentity())));
}
