import { describe, expect, expectTypeOf, it } from "vitest";
import {
  CHANNELS,
  type ApiResult,
  type Channel,
  type LatheApi,
  type RequestOf,
  type ResponseOf,
} from "./api-contract.ts";
import { createLatheApi, type Invoke } from "./create-lathe-api.ts";

type AnyMethod = (request?: unknown) => Promise<unknown>;

/** A client whose transport records each channel it is asked for, with the request. */
function recordingClient(): { api: LatheApi; sent: { channel: Channel; request: unknown }[] } {
  const sent: { channel: Channel; request: unknown }[] = [];
  const invoke: Invoke = (channel, request) => {
    sent.push({ channel, request });
    return Promise.resolve({ ok: true, data: undefined } as ApiResult<ResponseOf<typeof channel>>);
  };
  return { api: createLatheApi(invoke, () => () => undefined), sent };
}

/** Every method of the client, as `group.method`, with the function. */
function clientMethods(api: LatheApi): [string, AnyMethod][] {
  return Object.entries(api).flatMap(([group, value]) =>
    group === "on"
      ? []
      : Object.entries(value as Record<string, AnyMethod>).map(([method, fn]): [string, AnyMethod] => [
          `${group}.${method}`,
          fn,
        ]),
  );
}

describe("the client derived from the channel table", () => {
  it("reaches every channel through exactly one method, and every method reaches a channel", async () => {
    const { api, sent } = recordingClient();
    const methods = clientMethods(api);
    const reached = new Map<string, Channel>();
    for (const [name, method] of methods) {
      await method({ marker: name });
      const last = sent.at(-1);
      expect(last?.request, name).toEqual({ marker: name });
      reached.set(name, last?.channel as Channel);
    }
    expect(methods.length).toBe(CHANNELS.length);
    expect([...reached.values()].sort()).toEqual([...CHANNELS].sort());
  });

  it.each([
    ["tools.list", "tools.list"],
    ["tools.call", "tools.call"],
    ["checkpoints.previewRewind", "checkpoints.previewRewind"],
    // Channels that sit in another group of the client than their name says.
    ["approvals.respond", "approval.respond"],
    ["questions.respond", "question.respond"],
    ["projects.open", "project.open"],
    ["projects.recent", "project.recent"],
  ])("api.%s() sends on %s", async (path, channel) => {
    const { api, sent } = recordingClient();
    const method = new Map(clientMethods(api)).get(path);
    expect(method, `api.${path}`).toBeTypeOf("function");
    await method?.();
    expect(sent).toEqual([{ channel, request: undefined }]);
  });

  it("passes pushes to the transport's subscribe and hands back its unsubscribe", () => {
    const subscribed: string[] = [];
    const stop = (): void => undefined;
    const api = createLatheApi(
      () => Promise.reject(new Error("no channel is called here")),
      (event) => {
        subscribed.push(event);
        return stop;
      },
    );
    expect(api.on("project.status", () => undefined)).toBe(stop);
    expect(subscribed).toEqual(["project.status"]);
  });

  it("types each method from its channel: request optional only where the schema allows none", () => {
    expectTypeOf<LatheApi["tools"]["list"]>().parameters.toEqualTypeOf<[request?: RequestOf<"tools.list">]>();
    expectTypeOf<LatheApi["projects"]["open"]>().returns.toEqualTypeOf<
      Promise<ApiResult<ResponseOf<"project.open">>>
    >();
    expectTypeOf<LatheApi["tools"]["call"]>()
      .parameter(0)
      .toEqualTypeOf<{ toolId: string; args?: unknown }>();
    // @ts-expect-error a channel's method lives under its clientGroup, not its name's prefix
    expectTypeOf<LatheApi["project"]["open"]>();
  });
});
