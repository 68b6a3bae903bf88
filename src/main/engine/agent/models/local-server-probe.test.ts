import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loopbackTls } from "../../../../../test/support/loopback-tls.ts";
import { OPENAI_COMPATIBLE_PRESETS } from "../providers/openai-compatible-provider.ts";
import { probeLocalServer } from "./local-server-probe.ts";

const preset = OPENAI_COMPATIBLE_PRESETS[0] as (typeof OPENAI_COMPATIBLE_PRESETS)[number];

describe("probeLocalServer: what it says when the server cannot be asked", () => {
  let server: Server;
  let port = 0;
  let asked = 0;
  beforeAll(async () => {
    // A real server with a certificate of its own, as a local server behind a proxy may have.
    server = createServer(loopbackTls(), (_req, res) => {
      asked++;
      res.setHeader("content-type", "application/json");
      res.end('{"data":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("names an untrusted certificate and the fix, not fetch's bare 'fetch failed'", async () => {
    const probe = await probeLocalServer(preset, `https://127.0.0.1:${port}/v1`, { timeoutMs: 5_000 });
    expect(probe.state).toBe("error");
    expect(probe.message).toMatch(
      /TLS certificate is not trusted \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/,
    );
    expect(probe.message).toContain("NODE_EXTRA_CA_CERTS");
    expect(probe.message).toContain(`providers.${preset.name}.baseURL`);
    expect(probe.message).not.toMatch(/TypeError/);
    expect(asked).toBe(0);
  });

  it("says what lies under a failure it does not know, with its code", async () => {
    const odd = Object.assign(new Error("the proxy closed the tunnel"), { code: "ERR_PROXY_TUNNEL" });
    const probe = await probeLocalServer(preset, "http://127.0.0.1:9/v1", {
      fetch: () => Promise.reject(new TypeError("fetch failed", { cause: odd })),
    });
    expect(probe.message).toContain(
      "could not be asked: fetch failed: the proxy closed the tunnel (ERR_PROXY_TUNNEL)",
    );
    expect(probe.message).not.toMatch(/TypeError/);
  });
});
