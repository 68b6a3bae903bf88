import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { loopbackTls } from "./loopback-tls.ts";

/**
 * Test support (not shipped behaviour): an HTTP server on 127.0.0.1 with a free port, so the web
 * tools are exercised over real sockets without ever reaching the internet.
 */
export interface TestServer {
  /** `http://127.0.0.1:<port>` (`https://` for a TLS server, another loopback address if asked). */
  origin: string;
  port: number;
  /** How many requests arrived, and their paths. */
  requests: string[];
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** The loopback address to listen on (default 127.0.0.1; Linux answers on all of 127.0.0.0/8). */
  host?: string;
  /** Serve HTTPS with a throwaway certificate for 127.0.0.1 (see loopbackTls for its CA). */
  tls?: boolean;
}

export async function startTestServer(
  handler: http.RequestListener,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const host = options.host ?? "127.0.0.1";
  const requests: string[] = [];
  const listener: http.RequestListener = (req, res) => {
    requests.push(req.url ?? "");
    handler(req, res);
  };
  const server = options.tls
    ? https.createServer({ key: loopbackTls().key, cert: loopbackTls().cert }, listener)
    : http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${options.tls ? "https" : "http"}://${host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
