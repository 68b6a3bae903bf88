/**
 * The wire between a `lathe` process and the daemon that runs its command (see daemon-server.ts):
 * frames of one kind byte, a 32-bit big-endian length and that many bytes. Binary-safe, so a
 * command's output reaches the terminal byte for byte.
 */

/** What the `lathe` process (the client) sends. */
export const ToDaemon = {
  /** The command to run: a JSON JobRequest. The first frame, and only once. */
  job: 0x4a, // J
  /** Bytes of the client's stdin, sent only after the daemon asked for them. */
  stdin: 0x49, // I
  /** The client's stdin has ended. */
  stdinEnd: 0x45, // E
  /** The client got a signal (the UTF-8 name, SIGINT or SIGTERM): the command is to stop. */
  signal: 0x53, // S
  /** The reader of the client's stdout has gone (`lathe tools | head`). */
  stdoutClosed: 0x50, // P
} as const;

/** A first frame other than a job: a question about the daemon itself, answered with the same kind. */
export const Control = { status: 0x51 /* Q */, stop: 0x54 /* T */ } as const;

/** What `lathe daemon status` shows: the first frame of a status request is answered with it. */
export interface DaemonStatus {
  pid: number;
  startedAt: number;
  /** Commands run so far. */
  jobs: number;
  busy: boolean;
  idleMs: number;
  build: string;
  /** Resident memory and the JavaScript heap in use, in bytes. */
  memory: { rss: number; heapUsed: number };
  /** The MCP servers it keeps running for the next command, and for which folder (longest kept first). */
  mcpServers?: Array<{ name: string; root: string }>;
}

/** What the daemon sends. */
export const FromDaemon = {
  /** The command has started: from here on it has effects, so it is never run a second time. */
  accepted: 0x41, // A
  /** The daemon is running another command; the client runs this one itself. */
  busy: 0x42, // B
  /** Bytes for the client's stdout. */
  stdout: 0x4f, // O
  /** Bytes for the client's stderr. */
  stderr: 0x52, // R
  /** The command reads stdin: the client starts sending it. */
  wantStdin: 0x57, // W
  /** The command ended: one byte, its exit code. */
  exit: 0x58, // X
} as const;

/** How a standard stream of the client looks, so the command formats its output as it would there. */
export interface StreamLook {
  isTTY: boolean;
  /** The terminal's width, when it is one. */
  columns?: number;
}

/** The first frame: everything the command would have found in a process of its own. */
export interface JobRequest {
  /** The arguments after `lathe`. */
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: StreamLook;
  stdout: StreamLook;
  stderr: StreamLook;
}

const HEADER = 5;
/** No frame is larger: a command line and environment fit easily, output is sent in pieces. */
export const MAX_FRAME = 64 * 1024 * 1024;

export function frame(kind: number, payload: Uint8Array | string = new Uint8Array(0)): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  const out = Buffer.allocUnsafe(HEADER + body.length);
  out[0] = kind;
  out.writeUInt32BE(body.length, 1);
  out.set(body, HEADER);
  return out;
}

/** Thrown when the other end sends something that is not a frame: the connection is dropped. */
export class FrameError extends Error {}

/** Splits a byte stream into frames, whatever pieces the bytes arrive in. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  /** The whole frames `chunk` completes, in order. */
  push(chunk: Buffer): Array<{ kind: number; payload: Buffer }> {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Array<{ kind: number; payload: Buffer }> = [];
    while (this.pending.length >= HEADER) {
      const length = this.pending.readUInt32BE(1);
      if (length > MAX_FRAME) throw new FrameError(`a frame of ${length} bytes is larger than allowed`);
      if (this.pending.length < HEADER + length) break;
      frames.push({
        kind: this.pending[0] as number,
        payload: this.pending.subarray(HEADER, HEADER + length),
      });
      this.pending = this.pending.subarray(HEADER + length);
    }
    return frames;
  }
}
