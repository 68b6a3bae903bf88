// Finding the processes a command started, from the host. Commands may run in the OS sandbox's
// own PID namespace, where `$$` and `$!` mean nothing to the test, so a test starts `sleep
// <marker>` with a duration no other process uses and looks the marker up in /proc (Linux).
import { readdirSync, readFileSync } from "node:fs";

let markers = 0;

/** A sleep duration no other process uses: `100.<pid><n>9` (a valid, long duration). */
export function sleepMarker(): string {
  return `100.${process.pid}${++markers}9`;
}

/** Host pids of the live (not zombie) `sleep <marker>` processes. */
export function sleepers(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").replace(/^.*\) /s, "")[0];
      if (argv[0]?.endsWith("sleep") && argv[1] === marker && state !== "Z") pids.push(Number(entry));
    } catch {
      // Gone while we looked: not running.
    }
  }
  return pids;
}
