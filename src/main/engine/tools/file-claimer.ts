import os from "node:os";

/** Who holds a file another call wants to change: the path (canonical), the process and its machine. */
export interface FileClaimHolder {
  path: string;
  pid: number;
  host: string;
}

/**
 * Claims the files a call changes, for that call, across every session and Lathe process that
 * share a store (see store/file-claims.ts): resolves with `release` once every path is claimed,
 * or with the holder of one that stayed claimed for longer than it waits; rejects when `signal`
 * aborts the wait.
 */
export interface FileClaimer {
  claim(
    paths: readonly string[],
    signal?: AbortSignal,
  ): Promise<{ release: () => void; holder?: undefined } | { release?: undefined; holder: FileClaimHolder }>;
}

/** "process 123", or "process 123 on build-7" for a process on another machine sharing the folder. */
export function describeClaimHolder(holder: FileClaimHolder): string {
  return holder.host === os.hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
}
