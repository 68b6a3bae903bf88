import { childrenOf } from "./process-tree.ts";
import { signalProcess as signal } from "./signal-process.ts";

/**
 * SIGKILL a sandbox launcher (bubblewrap) and everything below it. Killing bubblewrap alone is
 * not enough in its first milliseconds: the sandbox's init learns of its parent's death only
 * once it has set that up, and one started just before would run on, orphaned. So the tree is
 * stopped top-down (a stopped process can fork no more, so each one's children are final when
 * read), then killed; killing the init of the sandbox's PID namespace ends everything in it.
 */
export function killSandboxTree(root: number): void {
  if (process.platform !== "linux") {
    signal(root, "SIGKILL");
    return;
  }
  const stopped: number[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    if (stopped.includes(pid) || !signal(pid, "SIGSTOP")) continue;
    stopped.push(pid);
    queue.push(...childrenOf(pid));
  }
  for (const pid of stopped.reverse()) signal(pid, "SIGKILL");
}
