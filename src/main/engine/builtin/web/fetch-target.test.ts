import { describe, expect, it } from "vitest";
import { ToolCallError } from "../../errors/tool-call-error.ts";
import {
  isAllowedPrivateHost,
  resolveFetchTarget,
  type LookupAll,
  type ResolvedAddress,
} from "./fetch-target.ts";

const never = new AbortController().signal;

/** A resolver that must not be asked: literal addresses and localhost names are judged without DNS. */
const noDns: LookupAll = (host) => Promise.reject(new Error(`unexpected DNS lookup of ${host}`));

function fakeDns(table: Record<string, string[]>, asked: string[] = []): LookupAll {
  return (host) => {
    asked.push(host);
    const addresses = table[host];
    if (!addresses)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }));
    return Promise.resolve(
      addresses.map((address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  };
}

async function refusal(
  url: string,
  lookup: LookupAll = noDns,
  allowPrivateHosts: string[] = [],
): Promise<string> {
  try {
    await resolveFetchTarget(new URL(url), { allowPrivateHosts, lookup }, never);
  } catch (err) {
    if (ToolCallError.isInstance(err)) return err.message;
    throw err;
  }
  throw new Error(`${url} was not refused`);
}

describe("resolveFetchTarget: local addresses in every spelling", () => {
  it.each([
    ["http://127.0.0.1/", "loopback"],
    ["http://127.1/", "loopback"],
    ["http://127.0.1/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://0x7f000001/", "loopback"],
    ["http://0177.0.0.1/", "loopback"],
    ["http://017700000001/", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://127.0.0.1./", "loopback"],
    ["http://%31%32%37.0.0.1/", "loopback"],
    ["http://１２７.０.０.１/", "loopback"],
    ["http://127.0.0.1:8080/admin", "loopback"],
    ["https://127.0.0.1/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://[0:0:0:0:0:0:0:1]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "127.0.0.1, a loopback"],
    ["http://[::ffff:7f00:1]/", "127.0.0.1, a loopback"],
    ["http://[0:0:0:0:0:ffff:127.0.0.1]/", "127.0.0.1, a loopback"],
    ["http://[::127.0.0.1]/", "127.0.0.1, a loopback"],
    ["http://[64:ff9b::127.0.0.1]/", "127.0.0.1, a loopback"],
    ["http://[2002:7f00:1::]/", "127.0.0.1, a loopback"],
    ["http://localhost/", "loopback"],
    ["http://LOCALHOST/", "loopback"],
    ["http://localhost./", "loopback"],
    ["http://localhost:3000/", "loopback"],
    ["http://app.localhost/", "loopback"],
    ["http://169.254.169.254/latest/meta-data/", "link-local"],
    ["http://0xa9.0xfe.0xa9.0xfe/", "link-local"],
    ["http://2852039166/", "link-local"],
    ["http://[::ffff:169.254.169.254]/", "link-local"],
    ["http://[fe80::1]/", "link-local"],
    ["http://10.0.0.1/", "private"],
    ["http://012.0.0.1/", "private"],
    ["http://172.16.5.4/", "private"],
    ["http://192.168.0.1/", "private"],
    ["http://0xc0.0xa8.1.1/", "private"],
    ["http://100.64.1.1/", "carrier-grade NAT"],
    ["http://[fd00::1]/", "unique-local"],
    ["http://0/", "unspecified"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://[::]/", "unspecified"],
    ["http://224.0.0.251/", "multicast"],
    ["http://[ff02::1]/", "multicast"],
    ["http://255.255.255.255/", "broadcast"],
    ["http://192.0.2.1/", "documentation"],
  ])("refuses %s (%s)", async (url, what) => {
    const message = await refusal(url);
    expect(message).toContain(what);
    expect(message).toMatch(/^web_fetch refuses /);
    expect(message).toContain("web.fetch.allowPrivateHosts");
  });

  it("refuses a name when any of its addresses is local, even if another is public", async () => {
    const message = await refusal(
      "https://mixed.test/",
      fakeDns({ "mixed.test": ["93.184.216.34", "10.1.2.3"] }),
    );
    expect(message).toContain("mixed.test resolves to 10.1.2.3, a private address");
  });

  it("refuses a name that resolves to the cloud metadata address", async () => {
    expect(
      await refusal("http://metadata.test/", fakeDns({ "metadata.test": ["169.254.169.254"] })),
    ).toContain("link-local");
  });

  it("resolves a public name once and returns every address to connect to", async () => {
    const asked: string[] = [];
    const target = await resolveFetchTarget(
      new URL("https://www.example.test/page"),
      {
        allowPrivateHosts: [],
        lookup: fakeDns({ "www.example.test": ["93.184.216.34", "2606:2800:220:1::1"] }, asked),
      },
      never,
    );
    expect(asked).toEqual(["www.example.test"]);
    expect(target.hostname).toBe("www.example.test");
    expect(target.addresses.map((a) => a.address)).toEqual(["93.184.216.34", "2606:2800:220:1::1"]);
  });

  it("says when a host does not resolve", async () => {
    expect(await refusal("https://nowhere.test/", fakeDns({}))).toContain(
      "could not resolve the host nowhere.test (ENOTFOUND)",
    );
  });

  it.each([
    ["file:///etc/passwd", "uses file. Read local files with the read tool"],
    ["ftp://example.com/x", "uses ftp"],
    ["gopher://127.0.0.1:6379/_INFO", "uses gopher"],
    ["data:text/plain,hello", "uses data"],
    ["http://user:secret@example.com/", "does not send credentials"],
  ])("refuses %s before any lookup", async (url, what) => {
    expect(await refusal(url)).toContain(what);
  });
});

describe("allowPrivateHosts", () => {
  it.each([
    ["http://127.0.0.1:5173/", ["127.0.0.1"], true],
    ["http://127.0.0.1:5173/", ["127.0.0.1:5173"], true],
    ["http://127.0.0.1:5173/", ["127.0.0.1:8080"], false],
    ["http://127.1:5173/", ["127.0.0.1"], true],
    ["http://localhost/", ["localhost:80"], true],
    ["https://localhost/", ["localhost:80"], false],
    ["http://localhost./", ["LOCALHOST"], true],
    ["http://[::1]:3000/", ["[::1]:3000"], true],
    ["http://[::1]:3000/", ["::1"], true],
    ["http://[::1]:3000/", ["[::1]:4000"], false],
    ["http://dev.internal/", ["dev.internal"], true],
    ["http://evil.dev.internal/", ["dev.internal"], false],
    ["http://10.0.0.5/", ["10.0.0.6"], false],
    // Written as the hosts of a plugin's requires.net.hosts are, which the settings accept too.
    ["http://127.0.0.1:5173/", ["127.0.0.1:*"], true],
    ["http://api.dev.internal:8080/", ["*.dev.internal"], true],
    ["http://dev.internal/", ["*.dev.internal"], false],
    ["http://10.0.0.5/", ["*"], false],
  ])("%s with %j: allowed = %s", (url, list, allowed) => {
    expect(isAllowedPrivateHost(new URL(url), list)).toBe(allowed);
  });

  it("lets a listed private host through with the address it resolved to", async () => {
    const target = await resolveFetchTarget(
      new URL("http://dev.internal:8080/"),
      { allowPrivateHosts: ["dev.internal:8080"], lookup: fakeDns({ "dev.internal": ["10.0.0.5"] }) },
      never,
    );
    expect(target.addresses).toEqual([{ address: "10.0.0.5", family: 4 }]);
  });

  it("does not extend a listed host to other local hosts", async () => {
    expect(await refusal("http://10.0.0.6/", noDns, ["10.0.0.5"])).toContain("private");
  });
});
