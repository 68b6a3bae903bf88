import http, { createServer, type Server } from "node:http";
import type { LookupAddress } from "node:dns";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LookupAll, ResolvedAddress } from "../src/main/engine/builtin/web/fetch-target.ts";
import { openPluginWorld, plugin, writePlugin, type PluginWorld } from "./support/plugin-test-kit.ts";
import { errorOf, outputOf } from "./support/envelope-of.ts";
import { compilePattern } from "../src/main/engine/policy/rule-pattern.ts";
import type { Session } from "../src/main/engine/session/session.ts";

/**
 * `runtime.net.fetch` against names that resolve to this machine or a private network, host
 * patterns that match by string prefix, and ports. A loopback service stands in for whatever
 * listens locally (a database admin page, a cloud metadata endpoint). The positive control
 * fetches the same declared name with a plain Node request through the same resolver and
 * really reaches the service; Lathe refuses before connecting, and the service sees nothing.
 */

const OPEN_ARGS = { type: "object", additionalProperties: true };

let server: Server;
let port = 0;
const requests: string[] = [];
const lookups: string[] = [];

/** The test's DNS: names of the hostile rows and where they lead. */
const ZONE: Record<string, ResolvedAddress[]> = {
  "api.example.test": [{ address: "127.0.0.1", family: 4 }],
  "sub.example.test": [{ address: "127.0.0.1", family: 4 }],
  "mapped.example.test": [{ address: "::ffff:127.0.0.1", family: 6 }],
  "intranet.example.test": [{ address: "10.0.0.7", family: 4 }],
  "metadata.example.test": [{ address: "169.254.169.254", family: 4 }],
  "mixed.example.test": [
    { address: "93.184.216.34", family: 4 },
    { address: "127.0.0.1", family: 4 },
  ],
  localhost: [{ address: "127.0.0.1", family: 4 }],
};

const lookup: LookupAll = async (hostname) => {
  lookups.push(hostname);
  const found = ZONE[hostname.toLowerCase()];
  if (!found) throw Object.assign(new Error(`no such host ${hostname}`), { code: "ENOTFOUND" });
  return found;
};

/** The same resolver in the shape Node's http client takes, for the positive control. */
function nodeLookup(
  hostname: string,
  options: { all?: boolean },
  callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
): void {
  lookup(hostname).then(
    (all) => {
      const first = all[0] as ResolvedAddress;
      if (options.all) callback(null, all);
      else callback(null, first.address, first.family);
    },
    (err: Error) => callback(err, ""),
  );
}

function rawGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { lookup: nodeLookup as never, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
      .on("error", reject);
  });
}

let world: PluginWorld;
let session: Session;

function fetcher(name: string, hosts: string[]) {
  return plugin(name, "return await runtime.net.fetch(args.url, args.init);", {
    input_schema: OPEN_ARGS,
    requires: { net: { hosts } },
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.headers.host} ${req.url}`);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => res.writeHead(200, { "x-seen": body }).end("local service"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  world = await openPluginWorld({
    manager: { lookup },
    arrange: async (w) => {
      const plugins: Record<string, string[]> = {
        named: ["api.example.test"],
        wildcard: ["*.example.test"],
        anything: ["*"],
        mapped: ["mapped.example.test"],
        intranet: ["intranet.example.test"],
        metadata: ["metadata.example.test"],
        mixed: ["mixed.example.test"],
        literal_port: [`127.0.0.1:${port}`],
        literal_any_port: ["127.0.0.1:*"],
        local_name: [`localhost:${port}`],
      };
      for (const [name, hosts] of Object.entries(plugins))
        await writePlugin(w.globalDir, name, fetcher(name, hosts));
      const bad: Record<string, string> = {
        bad_scheme: "https://api.example.com",
        bad_path: "api.example.com/v1",
        bad_glob: "*example.com",
        bad_middle_glob: "api.*.com",
        bad_port: "127.0.0.1:99999",
        bad_unspecified: "0.0.0.0",
        bad_credentials: "user@api.example.com",
        bad_tld_glob: "*.com",
      };
      for (const [name, entry] of Object.entries(bad))
        await writePlugin(w.globalDir, name, fetcher(name, [entry]));
    },
  });
  session = await world.session();
});

afterAll(async () => {
  await world?.cleanup();
  await new Promise((r) => server?.close(r));
});

describe("positive control: outside Lathe, the declared name reaches the loopback service", () => {
  it("a plain Node request to http://api.example.test resolves to 127.0.0.1 and gets the local service", async () => {
    const seen = requests.length;
    expect(await rawGet(`http://api.example.test:${port}/admin`)).toBe(200);
    expect(requests.slice(seen)).toEqual([`GET api.example.test:${port} /admin`]);
  });

  it("the old host matching took 127.0.0.1:* as a string prefix that 127.0.0.12 matches", () => {
    expect(compilePattern("127.0.0.1:*", "host").test("127.0.0.12")).toBe(true);
  });
});

describe("Lathe: names are resolved, checked and pinned; patterns are parsed", () => {
  const refused = (): Array<[string, string, () => string, RegExp]> => [
    [
      "a declared name that resolves to loopback",
      "named",
      () => `http://api.example.test:${port}/admin`,
      /named \(runtime\.net\.fetch\) refuses .*api\.example\.test resolves to 127\.0\.0\.1, a loopback address/,
    ],
    [
      "a wildcard subdomain that resolves to loopback",
      "wildcard",
      () => `http://sub.example.test:${port}/`,
      /sub\.example\.test resolves to 127\.0\.0\.1, a loopback address/,
    ],
    [
      "an IPv4-mapped IPv6 loopback answer",
      "mapped",
      () => `http://mapped.example.test:${port}/`,
      /resolves to ::ffff:127\.0\.0\.1, an IPv4-mapped IPv6 form of 127\.0\.0\.1/,
    ],
    [
      "a name that resolves to a private network",
      "intranet",
      () => "http://intranet.example.test/",
      /resolves to 10\.0\.0\.7, a private address/,
    ],
    [
      "a name that resolves to the cloud metadata address",
      "metadata",
      () => "http://metadata.example.test/latest/meta-data/",
      /resolves to 169\.254\.169\.254, a link-local address/,
    ],
    [
      "a name with one public and one loopback answer",
      "mixed",
      () => `http://mixed.example.test:${port}/`,
      /resolves to 127\.0\.0\.1, a loopback address/,
    ],
    ["`*` and localhost", "anything", () => `http://localhost:${port}/`, /names this machine \(loopback\)/],
    [
      "`*` and a loopback IP literal",
      "anything",
      () => `http://127.0.0.1:${port}/`,
      /127\.0\.0\.1 is a loopback address/,
    ],
    [
      "`*` and a decimal spelling of 127.0.0.1",
      "anything",
      () => `http://2130706433:${port}/`,
      /127\.0\.0\.1 is a loopback address/,
    ],
    [
      "127.0.0.1:* against 127.0.0.12 (no string prefix)",
      "literal_any_port",
      () => `http://127.0.0.12:${port}/`,
      /literal_any_port may not reach 127\.0\.0\.12:\d+: it is not among the hosts this tool declared \(127\.0\.0\.1:\*\)/,
    ],
    [
      "a declared IP and port, another port",
      "literal_port",
      () => `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}/`,
      /literal_port may not reach 127\.0\.0\.1:\d+: it is not among the hosts/,
    ],
    [
      "a declared localhost:port, another port",
      "local_name",
      () => `http://localhost:${port === 65535 ? port - 1 : port + 1}/`,
      /local_name may not reach localhost:\d+/,
    ],
  ];

  it.each(refused())("refuses %s", async (_name, tool, url, message) => {
    const seen = requests.length;
    const text = errorOf(await session.call(tool, { url: url() }));
    expect(text).toMatch(message);
    expect(requests.length).toBe(seen);
  });

  it.each([
    ["an IP literal and port it declared", "literal_port", () => `http://127.0.0.1:${port}/ok`],
    ["127.0.0.1:* on any port of 127.0.0.1", "literal_any_port", () => `http://127.0.0.1:${port}/ok`],
    ["localhost:port it declared", "local_name", () => `http://localhost:${port}/ok`],
  ])("still reaches %s", async (_name, tool, url) => {
    const seen = requests.length;
    const data = outputOf<{ status: number; text: string }>(await session.call(tool, { url: url() }));
    expect(data).toMatchObject({ status: 200, text: "local service" });
    expect(requests.slice(seen)).toHaveLength(1);
  });

  it("connects to the address it checked: one lookup per fetch, none by the connection", async () => {
    const before = lookups.length;
    const data = outputOf<{ status: number; headers: Record<string, string> }>(
      await session.call("local_name", {
        url: `http://localhost:${port}/post`,
        init: { method: "POST", body: "hello", headers: { "content-type": "text/plain" } },
      }),
    );
    expect(data.status).toBe(200);
    expect(data.headers["x-seen"]).toBe("hello");
    expect(lookups.slice(before)).toEqual(["localhost"]);
    expect(requests.at(-1)).toBe(`POST localhost:${port} /post`);
  });
});

describe("host entries are parsed at load: a scheme, path or malformed entry is a load error", () => {
  it.each([
    ["bad_scheme", "https://api.example.com", /has a scheme/],
    ["bad_path", "api.example.com/v1", /is not a bare host/],
    ["bad_glob", "*example.com", /only \* and \*\.example\.com are wildcards/],
    ["bad_middle_glob", "api.*.com", /only \* and \*\.example\.com are wildcards/],
    ["bad_port", "127.0.0.1:99999", /not a number from 1 to 65535/],
    ["bad_unspecified", "0.0.0.0", /the unspecified address/],
    ["bad_credentials", "user@api.example.com", /is not a bare host/],
    ["bad_tld_glob", "*.com", /does not end in a domain with a dot/],
  ])("%s (%s)", (name, entry, message) => {
    const status = world.manager.status().find((s) => s.name === name);
    expect(status?.state).toBe("disabled");
    expect(status?.reason).toContain('field "requires.net.hosts" has a bad entry');
    expect(status?.reason).toContain(`"${entry}"`);
    expect(status?.reason).toMatch(message);
    expect(world.engine.registry.get(name)).toBeUndefined();
  });
});
