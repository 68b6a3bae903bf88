// The browser client's side of a connection that goes away: what the page is told, and when.
import { describe, expect, it } from "vitest";
import { CONNECTION_LOST, createWsApi, type WebSocketLike } from "./ws-api.ts";

type Listener = (event: { data: unknown }) => void;

/** A socket the test opens, answers and closes by hand. */
class FakeSocket implements WebSocketLike {
  readyState = 0;
  sent: string[] = [];
  private listeners = new Map<string, Listener[]>();
  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.emit("close");
  }
  emit(type: "open" | "close" | "message", data?: unknown): void {
    if (type === "open") this.readyState = 1;
    if (type === "close") this.readyState = 3;
    for (const listener of this.listeners.get(type) ?? []) listener({ data });
  }
}

function world() {
  const sockets: FakeSocket[] = [];
  const told: Array<string | undefined> = [];
  const api = createWsApi("ws://127.0.0.1:1/api?token=t", {
    connect: () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
    onConnection: (lost) => told.push(lost),
  });
  return { api, sockets, told };
}

describe("createWsApi when the connection closes", () => {
  it("tells the page once the open connection closes, fails the call waiting, and tells it again when one opens", async () => {
    const { api, sockets, told } = world();
    const waiting = api.tools.list();
    sockets[0]!.emit("open");
    await expect.poll(() => sockets[0]!.sent.length).toBe(1);
    sockets[0]!.emit("close");
    expect(await waiting).toEqual({ ok: false, error: { message: CONNECTION_LOST } });
    expect(told).toEqual([CONNECTION_LOST]);

    const next = api.tools.list();
    sockets[1]!.emit("open");
    expect(told).toEqual([CONNECTION_LOST, undefined]);
    await expect.poll(() => sockets[1]!.sent.length).toBe(1);
    const { id } = JSON.parse(sockets[1]!.sent[0]!) as { id: number };
    sockets[1]!.emit("message", JSON.stringify({ id, result: { ok: true, data: [] } }));
    expect(await next).toEqual({ ok: true, data: [] });
  });

  it("says nothing about a connection that never opened, and names no channel in the failure", async () => {
    const { api, sockets, told } = world();
    const answer = api.audit.query({});
    sockets[0]!.emit("close");
    const result = await answer;
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toMatch(/^No answer from lathe serve: could not connect/);
      expect(result.error.message).not.toMatch(/audit\.query/);
    }
    expect(told).toEqual([]);
  });
});

describe("createWsApi and the tab id", () => {
  function tabWorld(stored: string | undefined) {
    const urls: string[] = [];
    const sockets: FakeSocket[] = [];
    const kept = { id: stored };
    const api = createWsApi("ws://127.0.0.1:1/api?token=t", {
      connect: (url) => {
        urls.push(url);
        const socket = new FakeSocket();
        sockets.push(socket);
        return socket;
      },
      onConnection: () => undefined,
      tab: { presented: () => kept.id, assigned: (id) => (kept.id = id) },
    });
    const tabOf = (url: string) => new URL(url).searchParams.get("tab");
    return { api, urls, sockets, kept, tabOf };
  }

  it.each([
    { case: "the id it keeps", stored: "tab-kept-by-this-page", presented: "tab-kept-by-this-page" },
    { case: "none when it keeps none", stored: undefined, presented: null },
    { case: "none when what it keeps is malformed", stored: "../../x&token=y", presented: null },
  ])("presents $case when it connects", ({ stored, presented }) => {
    const { api, urls, tabOf } = tabWorld(stored);
    void api.tools.list();
    expect(tabOf(urls[0]!)).toBe(presented);
    expect(new URL(urls[0]!).searchParams.get("token")).toBe("t");
  });

  it("keeps the id the server assigns and presents it when it connects again", async () => {
    const { api, urls, sockets, kept, tabOf } = tabWorld("tab-copied-from-the-original");
    void api.tools.list();
    sockets[0]!.emit("open");
    sockets[0]!.emit(
      "message",
      JSON.stringify({ event: "tab.assigned", payload: { tabId: "tab-fresh-for-the-copy" } }),
    );
    expect(kept.id).toBe("tab-fresh-for-the-copy");
    // A malformed assignment is dropped: the id kept stays.
    sockets[0]!.emit("message", JSON.stringify({ event: "tab.assigned", payload: { tabId: "bad" } }));
    expect(kept.id).toBe("tab-fresh-for-the-copy");
    sockets[0]!.emit("close");
    void api.tools.list();
    expect(tabOf(urls[1]!)).toBe("tab-fresh-for-the-copy");
  });
});
