import { describe, expect, it } from "vitest";
import type { ApiResult, LatheApi } from "../../shared/api-contract.ts";
import type { SecretsStatus } from "../../shared/secret-schemas.ts";
import { createProvidersStore, keyState } from "./providers-store.ts";
import { unusedApi } from "../../../test/support/unused-api.ts";

const SECRET = "sk-ant-typed-into-the-field";
const empty: SecretsStatus = { available: true, stored: [], fromEnvironment: ["openai"] };

function fakeApi(answers: { set?: ApiResult<SecretsStatus>; remove?: ApiResult<SecretsStatus> } = {}) {
  const calls: Array<[string, unknown]> = [];
  let release: (() => void) | undefined;
  const api: LatheApi = {
    ...unusedApi(),
    secrets: {
      status: () => Promise.resolve({ ok: true, data: empty }),
      set: async (request) => {
        calls.push(["set", request]);
        await new Promise<void>((resolve) => (release = resolve));
        return answers.set ?? { ok: true, data: { ...empty, stored: [request.name] } };
      },
      remove: (request) => {
        calls.push(["remove", request]);
        return Promise.resolve(answers.remove ?? { ok: true, data: empty });
      },
    },
    on: () => () => undefined,
  };
  return { api, calls, release: () => release?.() };
}

describe("the providers store", () => {
  it("hands a typed key to the host once and keeps nothing of it", async () => {
    const fake = fakeApi();
    const store = createProvidersStore(fake.api);
    await store.getState().load();
    expect(store.getState().status).toEqual(empty);

    const saving = store.getState().save("anthropic", SECRET);
    expect(store.getState().pending).toBe("anthropic");
    // One action at a time: a second click while saving sends nothing.
    expect(await store.getState().remove("openai")).toBeUndefined();
    fake.release();
    expect(await saving).toBe(true);

    expect(fake.calls).toEqual([["set", { name: "anthropic", value: SECRET }]]);
    expect(store.getState().status?.stored).toEqual(["anthropic"]);
    expect(store.getState().saved).toBe("anthropic");
    expect(store.getState().pending).toBeUndefined();
    expect(JSON.stringify(store.getState())).not.toContain(SECRET);
  });

  it("shows the host's refusal beside the key, and the key stays unsaved", async () => {
    const refusal =
      "lathe serve has no access to the OS keychain: set ANTHROPIC_API_KEY in the environment of lathe serve instead.";
    const fake = fakeApi({ set: { ok: false, error: { message: refusal } } });
    const store = createProvidersStore(fake.api);
    await store.getState().load();
    const saving = store.getState().save("anthropic", SECRET);
    fake.release();
    expect(await saving).toBe(false);
    expect(store.getState().actionError).toEqual({ name: "anthropic", message: refusal });
    expect(store.getState().saved).toBeUndefined();
    expect(store.getState().status).toEqual(empty);
  });

  it("removes a key and shows the new state", async () => {
    const fake = fakeApi();
    const store = createProvidersStore(fake.api);
    await store.getState().remove("brave");
    expect(fake.calls).toEqual([["remove", { name: "brave" }]]);
    expect(store.getState().status).toEqual(empty);
  });

  it.each<[SecretsStatus, "environment" | "stored" | "unset"]>([
    [{ available: true, stored: [], fromEnvironment: [] }, "unset"],
    [{ available: true, stored: ["anthropic"], fromEnvironment: [] }, "stored"],
    [{ available: true, stored: [], fromEnvironment: ["anthropic"] }, "environment"],
    [{ available: true, stored: ["anthropic"], fromEnvironment: ["anthropic"] }, "environment"],
  ])("the anthropic key in %j is %s (the environment wins, as for the providers)", (status, expected) => {
    expect(keyState(status, "anthropic")).toBe(expected);
  });
});
