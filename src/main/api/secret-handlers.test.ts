import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CHANNELS, type ApiResult } from "../../shared/api-contract.ts";
import type { SecretsStatus } from "../../shared/secret-schemas.ts";
import { ProviderKeys } from "../secrets/provider-keys.ts";
import { SecretStore, type Encryptor } from "../secrets/secret-store.ts";
import { ApiRouter, type ApiHandlers } from "./api-router.ts";
import { createSecretHandlers } from "./secret-handlers.ts";

// The `secrets.*` channels through the router, over a real store file in a temp folder and a
// stand-in keychain: what a person stores is never readable in the file nor in any answer, and
// the environment a user set always wins.

const keychain: Encryptor = {
  isEncryptionAvailable: () => true,
  encryptString: (plain) => Buffer.from([...Buffer.from(plain)].map((b) => b ^ 0x5a)),
  decryptString: (enc) => Buffer.from([...enc].map((b) => b ^ 0x5a)).toString(),
};
const noKeychain: Encryptor = { ...keychain, isEncryptionAvailable: () => false };

const SECRET = "sk-ant-api03-Very-Secret-Value_0123456789";

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-secret-handlers-"));
  file = path.join(dir, "user-data", "secrets.json");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every other channel fails loudly if a test reaches it. */
const others = Object.fromEntries(
  CHANNELS.map((channel) => [
    channel,
    () => Promise.reject(new Error(`${channel} is not part of this test`)),
  ]),
) as unknown as ApiHandlers;

function host(options: { encryptor?: Encryptor | null; env?: NodeJS.ProcessEnv } = {}) {
  const env = options.env ?? {};
  const encryptor = options.encryptor === undefined ? keychain : options.encryptor;
  const keys = new ProviderKeys({
    env,
    ...(encryptor ? { store: new SecretStore(file, encryptor) } : {}),
  });
  const failures: unknown[] = [];
  const router = new ApiRouter(
    { ...others, ...createSecretHandlers(keys) },
    { onHandlerError: (_channel, error) => failures.push(error) },
  );
  /** A second window of the same process: its own router, the same keys. */
  const window = () => new ApiRouter({ ...others, ...createSecretHandlers(keys) });
  return { env, keys, router, window, failures };
}

function data<T>(answer: ApiResult<T>): T {
  if (!answer.ok) throw new Error(`expected ok, got: ${answer.error.message}`);
  return answer.data;
}

function refusal(answer: ApiResult<unknown>): string {
  if (answer.ok) throw new Error(`expected a refusal, got: ${JSON.stringify(answer.data)}`);
  return answer.error.message;
}

describe("secrets.* with the OS keychain", () => {
  it("stores a key encrypted, answers with names only, and hands it to the next run", async () => {
    const { env, router, failures } = host();
    expect(data(await router.dispatch("secrets.status", undefined))).toEqual({
      available: true,
      stored: [],
      fromEnvironment: [],
    });
    const answer = await router.dispatch("secrets.set", { name: "anthropic", value: `  ${SECRET}\n` });
    expect(data(answer)).toEqual({ available: true, stored: ["anthropic"], fromEnvironment: [] });
    expect(JSON.stringify(answer)).not.toContain(SECRET);
    expect(env["ANTHROPIC_API_KEY"]).toBe(SECRET);

    const text = await readFile(file, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(SECRET).toString("base64"));
    const status = await router.dispatch("secrets.status", undefined);
    expect(JSON.stringify(status)).not.toContain(SECRET);
    expect(data(status).stored).toEqual(["anthropic"]);
    expect(failures).toEqual([]);
  });

  it("never overrides nor removes a variable the user set", async () => {
    const { env, router } = host({ env: { OPENAI_API_KEY: "user-key" } });
    expect(data(await router.dispatch("secrets.status", undefined)).fromEnvironment).toEqual(["openai"]);
    const stored = data(await router.dispatch("secrets.set", { name: "openai", value: SECRET }));
    expect(stored).toEqual({ available: true, stored: ["openai"], fromEnvironment: ["openai"] });
    expect(env["OPENAI_API_KEY"]).toBe("user-key");
    const removed = data(await router.dispatch("secrets.remove", { name: "openai" }));
    expect(removed).toEqual({ available: true, stored: [], fromEnvironment: ["openai"] });
    expect(env["OPENAI_API_KEY"]).toBe("user-key");
  });

  it("unsets on remove only the variable Lathe set, whichever window removes it", async () => {
    const { env, router, window } = host({ env: { OPENAI_API_KEY: "user-key" } });
    data(await router.dispatch("secrets.set", { name: "brave", value: "brave-one" }));
    data(await router.dispatch("secrets.set", { name: "brave", value: "brave-two" }));
    expect(env["BRAVE_API_KEY"]).toBe("brave-two");
    const other = window();
    expect(data(await other.dispatch("secrets.status", undefined)).fromEnvironment).toEqual(["openai"]);
    data(await other.dispatch("secrets.remove", { name: "brave" }));
    expect(env).toEqual({ OPENAI_API_KEY: "user-key" });
  });

  it("takes over keys stored before the start, and removes what it handed over then", async () => {
    new SecretStore(file, keychain).set("anthropic", SECRET);
    new SecretStore(file, keychain).set("openai", "stored-openai");
    const { env, keys, router } = host({ env: { OPENAI_API_KEY: "user-key" } });
    expect(keys.applyStored()).toEqual(["anthropic"]);
    expect(env).toEqual({ OPENAI_API_KEY: "user-key", ANTHROPIC_API_KEY: SECRET });
    const status = data(await router.dispatch("secrets.status", undefined));
    expect(status).toEqual({ available: true, stored: ["anthropic", "openai"], fromEnvironment: ["openai"] });
    data(await router.dispatch("secrets.remove", { name: "anthropic" }));
    data(await router.dispatch("secrets.remove", { name: "openai" }));
    expect(env).toEqual({ OPENAI_API_KEY: "user-key" });
  });

  it("treats an empty variable as not set", async () => {
    const { env, router } = host({ env: { ANTHROPIC_API_KEY: "" } });
    expect(data(await router.dispatch("secrets.status", undefined)).fromEnvironment).toEqual([]);
    data(await router.dispatch("secrets.set", { name: "anthropic", value: SECRET }));
    expect(env["ANTHROPIC_API_KEY"]).toBe(SECRET);
  });

  it("refuses to remove a key that is not stored, and says where the one in use comes from", async () => {
    const { router, failures } = host({ env: { OPENAI_API_KEY: "user-key" } });
    expect(refusal(await router.dispatch("secrets.remove", { name: "anthropic" }))).toBe(
      "No anthropic key is stored in the keychain, so there is nothing to remove.",
    );
    expect(refusal(await router.dispatch("secrets.remove", { name: "openai" }))).toMatch(
      /comes from OPENAI_API_KEY in the environment: unset it there/,
    );
    expect(failures).toEqual([]);
  });

  const tooLong = "k".repeat(4097);
  it.each<[string, unknown, string | undefined]>([
    ["an unknown provider", { name: "google", value: SECRET }, SECRET],
    ["a variable name for a provider", { name: "ANTHROPIC_API_KEY", value: SECRET }, SECRET],
    ["no value", { name: "anthropic" }, undefined],
    ["an empty value", { name: "anthropic", value: "" }, undefined],
    ["a blank value", { name: "anthropic", value: "   \n" }, undefined],
    ["a value over 4096 characters", { name: "anthropic", value: tooLong }, tooLong],
    ["a value with a line break inside", { name: "anthropic", value: `${SECRET}\nsecond` }, SECRET],
    ["a value with a space inside", { name: "anthropic", value: `${SECRET} more` }, SECRET],
    ["a value that is not text", { name: "anthropic", value: 42 }, undefined],
    ["an extra field", { name: "anthropic", value: SECRET, file: "/tmp/x" }, SECRET],
    ["no payload", undefined, undefined],
  ])("refuses secrets.set with %s, without echoing the value", async (_label, payload, secret) => {
    const { env, router, failures } = host();
    const message = refusal(await router.dispatch("secrets.set", payload));
    expect(message).toMatch(/^Invalid request for secrets\.set/);
    if (secret !== undefined) expect(message).not.toContain(secret.slice(0, 12));
    expect(existsSync(file)).toBe(false);
    expect(env).toEqual({});
    expect(failures).toEqual([]);
  });

  it("accepts a key of exactly 4096 characters", async () => {
    const { env, router } = host();
    data(await router.dispatch("secrets.set", { name: "openai", value: "k".repeat(4096) }));
    expect(env["OPENAI_API_KEY"]).toHaveLength(4096);
  });

  it.each<[string, unknown]>([
    ["an unknown provider", { name: "google" }],
    ["a value", { name: "anthropic", value: SECRET }],
    ["no name", {}],
  ])("refuses secrets.remove with %s", async (_label, payload) => {
    const { router } = host();
    expect(refusal(await router.dispatch("secrets.remove", payload))).toMatch(
      /^Invalid request for secrets\.remove/,
    );
  });
});

describe("secrets.* without a keychain", () => {
  it("a host without a store reports it, explains what to do, and stores nothing", async () => {
    const { env, router, failures } = host({ encryptor: null, env: { OPENAI_API_KEY: "user-key" } });
    const status: SecretsStatus = data(await router.dispatch("secrets.status", undefined));
    expect(status).toEqual({
      available: false,
      explanation:
        "This host has no access to the OS keychain: set ANTHROPIC_API_KEY, OPENAI_API_KEY or BRAVE_API_KEY in its environment instead.",
      stored: [],
      fromEnvironment: ["openai"],
    });
    expect(refusal(await router.dispatch("secrets.set", { name: "anthropic", value: SECRET }))).toBe(
      "This host has no access to the OS keychain: set ANTHROPIC_API_KEY in its environment instead.",
    );
    expect(refusal(await router.dispatch("secrets.remove", { name: "openai" }))).toMatch(
      /set OPENAI_API_KEY in its environment/,
    );
    expect(env).toEqual({ OPENAI_API_KEY: "user-key" });
    expect(existsSync(file)).toBe(false);
    expect(failures).toEqual([]);
  });

  it("a system without keychain encryption writes nothing, yet can forget an old key", async () => {
    new SecretStore(file, keychain).set("brave", "old-brave");
    const before = await readFile(file, "utf8");
    const { env, keys, router, failures } = host({ encryptor: noKeychain });
    expect(keys.applyStored()).toEqual([]);
    const status = data(await router.dispatch("secrets.status", undefined));
    expect(status.available).toBe(false);
    expect(status.explanation).toMatch(/no keychain encryption, so Lathe stores no keys/);
    expect(status.stored).toEqual(["brave"]);
    expect(refusal(await router.dispatch("secrets.set", { name: "openai", value: SECRET }))).toMatch(
      /set OPENAI_API_KEY in the environment of Lathe instead/,
    );
    expect(await readFile(file, "utf8")).toBe(before);
    expect(data(await router.dispatch("secrets.remove", { name: "brave" })).stored).toEqual([]);
    expect(env).toEqual({});
    expect(failures).toEqual([]);
  });

  it("a damaged store file is reported as a failure, not as an empty list", async () => {
    const { router, failures } = host();
    data(await router.dispatch("secrets.set", { name: "brave", value: "b" }));
    await writeFile(file, "{ not json");
    expect(refusal(await router.dispatch("secrets.status", undefined))).toMatch(/^secrets\.status failed/);
    expect(failures).toHaveLength(1);
  });
});
