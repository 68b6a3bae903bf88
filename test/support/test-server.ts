import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Test support (not shipped behaviour): an HTTP server on 127.0.0.1 with a free port, so the web
 * tools are exercised over real sockets without ever reaching the internet.
 */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** How many requests arrived, and their paths. */
  requests: string[];
  close(): Promise<void>;
}

export async function startTestServer(handler: http.RequestListener): Promise<TestServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
