import { readdirSync, readFileSync } from "node:fs";

/** The children of every thread of `pid` (Linux); none once it has gone. */
export function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const task of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ")) {
        if (/^\d+$/.test(child)) out.push(Number(child));
      }
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/**
 * `root` and the processes below it now, parents before their children (Linux). A process that
 * forks meanwhile may have children not listed: stop it first when that matters.
 */
export function processTree(root: number): number[] {
  const seen: number[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    if (seen.includes(pid)) continue;
    seen.push(pid);
    queue.push(...childrenOf(pid));
  }
  return seen;
}
