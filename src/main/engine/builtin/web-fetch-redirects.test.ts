import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../policy/approval-request.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import { loopbackTls } from "../../../../test/support/loopback-tls.ts";
import {
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from "../../../../test/support/test-server.ts";
import { openWebTestEngine, type WebTestEngine } from "../../../../test/support/web-test-engine.ts";
import { nonPublicReason } from "./web/address-policy.ts";
import { webFetchTool, type WebFetchData, type WebFetchOptions, type WebFetchSettings } from "./web-fetch.ts";

/**
 * Where a redirect may lead web_fetch: every hop is judged as the first URL was (scheme, private
 * addresses, permission rules and approvals), and a redirect may not lower the page's protection
 * (https to http, the public internet into a private network).
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function serve(handler: Handler, options: TestServerOptions = {}): Promise<TestServer> {
  const server = await startTestServer(handler, options);
  cleanups.push(() => server.close());
  return server;
}

function text(body: string): Handler {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(body);
  };
}

function redirectTo(location: string, status = 302): Handler {
  return (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
}

function settings(allowPrivateHosts: string[]): WebFetchSettings {
  return { allowPrivateHosts, timeoutMs: 5_000, maxBytes: 1_000_000 };
}

async function open(
  allowPrivateHosts: string[],
  extra: Parameters<typeof openWebTestEngine>[1] & { tool?: WebFetchOptions } = {},
): Promise<WebTestEngine> {
  const tool = { trustedCa: loopbackTls().cert, ...extra.tool };
  const ws = await openWebTestEngine([webFetchTool(settings(allowPrivateHosts), tool)], extra);
  cleanups.push(() => ws.cleanup());
  return ws;
}

describe("a redirect from https to http", () => {
  it("is refused, and the insecure address is never asked", async () => {
    const plain = await serve(text("over plain http"));
    const secure = await serve(redirectTo(`${plain.origin}/page`), { tls: true });
    const ws = await open(["127.0.0.1"]);
    // Positive control: both answer when fetched directly, so only the downgrade stops the redirect.
    expect(
      outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${plain.origin}/page` })).content,
    ).toBe("over plain http");
    expect(plain.requests).toEqual(["/page"]);

    const message = errorOf(await ws.session.call("web_fetch", { url: `${secure.origin}/start` }));
    expect(message).toBe(
      `The page at ${secure.origin}/start redirected to an insecure http address, ${plain.origin}/page: web_fetch does not follow a redirect from https to http. Fetch that address directly if you trust it.`,
    );
    expect(secure.requests).toEqual(["/start"]);
    expect(plain.requests).toEqual(["/page"]);
  });

  it("https to https is followed", async () => {
    const secure = await serve(
      (req, res) =>
        req.url === "/start" ? redirectTo("/next", 301)(req, res) : text("secure page")(req, res),
      { tls: true },
    );
    const ws = await open(["127.0.0.1"]);
    const data = outputOf<WebFetchData>(
      await ws.session.call("web_fetch", { url: `${secure.origin}/start` }),
    );
    expect(data).toMatchObject({ final_url: `${secure.origin}/next`, content: "secure page" });
  });
});

describe("a redirect to another port of the same host", () => {
  it("asks for approval again, as a first URL there would be, and stops when refused", async () => {
    const other = await serve(text("admin console"));
    const first = await serve(redirectTo(`http://127.0.0.1:${other.port}/admin`));
    const asked: string[] = [];
    const approver = async (request: ApprovalRequest) => {
      asked.push(request.approvalKey);
      return request.approvalKey.startsWith("web_fetch:") ? ("once" as const) : ("reject" as const);
    };
    const ws = await open(["127.0.0.1"], { mode: "ask", approver });
    const message = errorOf(await ws.session.call("web_fetch", { url: `${first.origin}/go` }));
    expect(message).toContain(
      `${first.origin}/go redirected to http://127.0.0.1:${other.port}/admin, which web_fetch will not follow`,
    );
    expect(asked).toEqual([`web_fetch:${first.origin}`, `net.fetch:http://127.0.0.1:${other.port}/admin`]);
    expect(other.requests).toEqual([]);
  });

  it("is refused when only the first port is an allowed private host", async () => {
    const other = await serve(text("database admin"));
    const first = await serve(redirectTo(`http://127.0.0.1:${other.port}/`));
    const ws = await open([`127.0.0.1:${first.port}`]);
    const message = errorOf(await ws.session.call("web_fetch", { url: `${first.origin}/go` }));
    expect(message).toContain(
      `web_fetch refuses http://127.0.0.1:${other.port}/: 127.0.0.1 is a loopback address`,
    );
    expect(message).toContain(`add "127.0.0.1:${other.port}" to web.fetch.allowPrivateHosts`);
    expect(other.requests).toEqual([]);
  });

  it("a redirect on the same host and port asks nothing more", async () => {
    const server = await serve((req, res) =>
      req.url === "/go" ? redirectTo("/there")(req, res) : text("there")(req, res),
    );
    const asked: string[] = [];
    const ws = await open(["127.0.0.1"], {
      mode: "ask",
      approver: async (request) => {
        asked.push(request.approvalKey);
        return "once";
      },
    });
    const data = outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${server.origin}/go` }));
    expect(data.content).toBe("there");
    expect(asked).toEqual([`web_fetch:${server.origin}`]);
  });
});

describe("a redirect from the public internet into a private network", () => {
  // The seam: this test's classifier calls 127.0.0.1 public, so a loopback server plays a public
  // site; 127.0.0.2 stays loopback and plays the intranet. Production uses nonPublicReason alone.
  const classifyAddress = (address: string): string | undefined =>
    address === "127.0.0.1" ? undefined : nonPublicReason(address);

  it.each([
    ["by address", (port: number) => `http://127.0.0.2:${port}/secret`, ["127.0.0.2"]],
    [
      "by a name the person allowed",
      (port: number) => `http://intranet.test:${port}/secret`,
      ["intranet.test"],
    ],
  ])(
    "is refused %s, though the private host is allowed for direct fetches",
    async (_how, target, allowed) => {
      const intranet = await serve(text("intranet secret"), { host: "127.0.0.2" });
      const site = await serve(redirectTo(target(intranet.port)));
      const lookup = async (host: string) =>
        host === "intranet.test"
          ? [{ address: "127.0.0.2", family: 4 }]
          : [{ address: "127.0.0.1", family: 4 }];
      const ws = await open(allowed, { tool: { classifyAddress, lookup } });
      // Positive control: the intranet answers a direct fetch (a person allowed it).
      expect(
        outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: target(intranet.port) })).content,
      ).toBe("intranet secret");
      expect(intranet.requests).toEqual(["/secret"]);

      const message = errorOf(await ws.session.call("web_fetch", { url: `${site.origin}/page` }));
      expect(message).toBe(
        `${site.origin}/page redirected to ${target(intranet.port)}, which web_fetch will not follow: ${site.origin}/page is on the public internet and ${new URL(target(intranet.port)).host} is on a private network (127.0.0.2 is a loopback address (127.0.0.0/8)); web_fetch does not let a public page lead it into a private network, even to a host allowed in web.fetch.allowPrivateHosts. Fetch that address directly if you mean to.`,
      );
      expect(intranet.requests).toEqual(["/secret"]);
    },
  );

  it("a private allowed host may redirect within itself", async () => {
    const intranet = await serve(
      (req, res) => (req.url === "/a" ? redirectTo("/b")(req, res) : text("page b")(req, res)),
      { host: "127.0.0.2" },
    );
    const ws = await open(["127.0.0.2"], { tool: { classifyAddress } });
    const data = outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${intranet.origin}/a` }));
    expect(data).toMatchObject({ final_url: `${intranet.origin}/b`, content: "page b" });
  });

  it("a public site may redirect to another public site", async () => {
    const other = await serve(text("elsewhere"));
    const site = await serve(redirectTo(`http://www.other.test:${other.port}/x`));
    const lookup = async () => [{ address: "127.0.0.1", family: 4 }];
    const ws = await open([], { tool: { classifyAddress, lookup } });
    const data = outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${site.origin}/` }));
    expect(data.content).toBe("elsewhere");
  });
});

describe("what a redirect's Location may hold", () => {
  it("a loop is named as one at its first repeat, not after five more requests", async () => {
    const server = await serve((req, res) => redirectTo(req.url === "/a" ? "/b" : "/a")(req, res));
    const ws = await open(["127.0.0.1"]);
    const message = errorOf(await ws.session.call("web_fetch", { url: `${server.origin}/a` }));
    expect(message).toBe(
      `The redirects of ${server.origin}/a go in a loop (${server.origin}/a → ${server.origin}/b → ${server.origin}/a): the site may want a cookie or a login, which web_fetch does not keep. Look for another URL with this content.`,
    );
    expect(server.requests).toEqual(["/a", "/b"]);
  });

  it("a password in the Location is not repeated to the model", async () => {
    const server = await serve(redirectTo("http://admin:s3cret-pw@127.0.0.1:1/x"));
    const ws = await open(["127.0.0.1"]);
    const message = errorOf(await ws.session.call("web_fetch", { url: `${server.origin}/` }));
    expect(message).toContain("redirected to http://admin:…@127.0.0.1:1/x, which web_fetch will not follow");
    expect(message).toContain("does not send credentials written into a URL");
    expect(message).not.toContain("s3cret");
  });

  it.each([
    ["data:", `data:text/plain,${"A".repeat(60_000)}`, "uses data"],
    ["a long path", `http://169.254.169.254/${"p".repeat(60_000)}`, "is a link-local address"],
  ])("a huge %s Location is quoted briefly", async (_what, location, why) => {
    const server = await serve(redirectTo(location));
    const ws = await open(["127.0.0.1"]);
    const message = errorOf(await ws.session.call("web_fetch", { url: `${server.origin}/` }));
    expect(message).toContain(location.slice(0, 100));
    expect(message).toContain(why);
    expect(message.length).toBeLessThan(1_500);
  });

  it.each([
    ["a 60 KB header (a large cookie or policy) is read", 60_000, undefined],
    [
      "more than 128 KB of headers is refused, saying so",
      200_000,
      "sent more than 128 KB of response headers",
    ],
  ])("%s", async (_name, size, refusal) => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "x-policy": "p".repeat(size) });
      res.end("page");
    });
    const ws = await open(["127.0.0.1"]);
    const envelope = await ws.session.call("web_fetch", { url: `${server.origin}/` });
    if (refusal === undefined) expect(outputOf<WebFetchData>(envelope).content).toBe("page");
    else expect(errorOf(envelope)).toContain(refusal);
  });
});
