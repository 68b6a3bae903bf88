import os from "node:os";
import { describe, expect, it } from "vitest";
import { processSpawner } from "../spawner/process-spawner.ts";
import { loadMcpSdk } from "./mcp-sdk.ts";
import { SpawnedStdioTransport } from "./spawned-stdio-transport.ts";

// The MCP stdio transport over servers the process spawner starts, with plain shell programs as
// the servers (the MCP suites in test/mcp*.test.ts run real MCP servers over it).

const sdk = await loadMcpSdk();

/** A transport whose server is `line` under /bin/sh, and what it reports. */
function transportFor(line: string) {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const transport = new SpawnedStdioTransport(
    () => processSpawner().server({ file: "/bin/sh", args: ["-c", line], line, cwd: os.tmpdir(), env }),
    sdk,
  );
  const messages: unknown[] = [];
  const errors: string[] = [];
  let closes = 0;
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (err) => errors.push(err.message);
  transport.onclose = () => closes++;
  return { transport, messages, errors, closes: () => closes };
}

const ping = { jsonrpc: "2.0" as const, id: 1, method: "ping" };

describe("SpawnedStdioTransport", () => {
  it("sends and receives newline-delimited JSON-RPC, and closing ends the server's input", async () => {
    const { transport, messages, closes } = transportFor("cat");
    await transport.start();
    expect(transport.pid).toEqual(expect.any(Number));
    await transport.send(ping);
    await expect.poll(() => messages, { timeout: 10_000 }).toEqual([ping]);
    await transport.close();
    // cat ended with its input, before any signal was needed.
    expect(transport.end).toEqual({ code: 0, signal: null, removed: [] });
    expect(closes()).toBe(1);
    expect(transport.pid).toBeUndefined();
    await expect(transport.send(ping)).rejects.toThrow("Not connected");
  });

  it("says what is not JSON-RPC on the server's output and reads on", async () => {
    const { transport, messages, errors } = transportFor(
      `echo 'not json'; echo '${JSON.stringify(ping)}'; cat >/dev/null`,
    );
    await transport.start();
    await expect.poll(() => messages, { timeout: 10_000 }).toEqual([ping]);
    expect(errors).toHaveLength(1);
    await transport.close();
  });

  it("answers a request whose answer is over 10 MB with an error saying so, and reads on", async () => {
    const { transport, messages, errors, closes } = transportFor(
      `printf '{"result":{"text":"'; head -c 11000000 /dev/zero | tr '\\0' x; printf '"},"jsonrpc":"2.0","id":4}\\n'; echo '${JSON.stringify(ping)}'; cat >/dev/null`,
    );
    await transport.start();
    await expect.poll(() => messages.length, { timeout: 10_000 }).toBe(2);
    expect(messages).toEqual([
      {
        jsonrpc: "2.0",
        id: 4,
        error: {
          code: -32603,
          message: "the answer was 10.5 MB, more than the 10 MB Lathe reads from an MCP server",
          data: { lathe: "message-too-large", bytes: 11_000_045 },
        },
      },
      ping,
    ]);
    expect(errors).toEqual([
      "it answered request 4 with 10.5 MB, more than the 10 MB Lathe reads; that answer was dropped",
    ]);
    expect(closes()).toBe(0);
    expect(transport.closedBecause).toBeUndefined();
    await transport.close();
  });

  it("closes the connection, saying why, when an oversized message's request cannot be told", async () => {
    const { transport, messages, closes } = transportFor(
      `head -c 11000000 /dev/zero | tr '\\0' x; echo; cat >/dev/null`,
    );
    await transport.start();
    await expect.poll(() => closes(), { timeout: 10_000 }).toBe(1);
    expect(messages).toEqual([]);
    expect(transport.closedBecause).toBe(
      "it sent a message of 10.5 MB, more than the 10 MB Lathe reads from an MCP server, and which request it answered could not be told",
    );
  });

  it("hands the server's stderr on, from its first line", async () => {
    const { transport } = transportFor("echo starting >&2; cat >/dev/null");
    let said = "";
    transport.stderr.setEncoding("utf8").on("data", (chunk: string) => (said += chunk));
    await transport.start();
    await expect.poll(() => said, { timeout: 10_000 }).toBe("starting\n");
    await transport.close();
  });

  it("stops a server that ignores the end of its input with SIGTERM", async () => {
    const { transport, closes } = transportFor("exec sleep 1000");
    await transport.start();
    const started = Date.now();
    await transport.close();
    expect(transport.end).toEqual({ code: null, signal: "SIGTERM", removed: [] });
    // Only after the grace period that follows the end of its input.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(closes()).toBe(1);
  });

  it("stops a server it was closed while starting, once it runs", async () => {
    const { transport, closes } = transportFor("cat");
    const starting = transport.start();
    const closing = transport.close();
    await starting;
    await closing;
    // cat saw the end of its input as soon as it ran.
    expect(transport.end).toEqual({ code: 0, signal: null, removed: [] });
    expect(closes()).toBe(1);
  });

  it("reports a server that exits by itself as closed", async () => {
    const { transport, closes } = transportFor("exit 3");
    await transport.start();
    await expect.poll(closes, { timeout: 10_000 }).toBe(1);
    expect(transport.end).toEqual({ code: 3, signal: null, removed: [] });
  });
});
