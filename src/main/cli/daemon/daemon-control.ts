import net from "node:net";
import { Control, type DaemonStatus, frame, FrameReader } from "./daemon-frames.ts";

/** How long a daemon has to answer a question about itself. */
const ANSWER_MS = 3_000;

/** Ask the daemon at `socket` one question (status or stop); undefined when none answers. */
function ask(socket: string, kind: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const connection = net.connect(socket);
    const reader = new FrameReader();
    const timer = setTimeout(() => done(undefined), ANSWER_MS);
    const done = (answer: Buffer | undefined): void => {
      clearTimeout(timer);
      connection.destroy();
      resolve(answer);
    };
    connection.on("error", () => done(undefined));
    connection.on("close", () => done(undefined));
    connection.on("connect", () => connection.write(frame(kind)));
    connection.on("data", (chunk: Buffer) => {
      try {
        const first = reader.push(chunk)[0];
        if (first) done(first.kind === kind ? Buffer.from(first.payload) : undefined);
      } catch {
        done(undefined);
      }
    });
  });
}

/** What the daemon listening at `socket` says of itself, or undefined when none listens. */
export async function daemonStatus(socket: string): Promise<DaemonStatus | undefined> {
  const answer = await ask(socket, Control.status);
  if (!answer) return undefined;
  try {
    return JSON.parse(answer.toString("utf8")) as DaemonStatus;
  } catch {
    return undefined;
  }
}

/** Ask the daemon at `socket` to stop (after the command it runs); whether one was there to ask. */
export async function stopDaemon(socket: string): Promise<boolean> {
  return (await ask(socket, Control.stop)) !== undefined;
}
