import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SecretStore, type Encryptor } from "./secret-store.ts";

// A stand-in for Electron's safeStorage: reversible, and visibly not the plain text.
const keychain: Encryptor = {
  isEncryptionAvailable: () => true,
  encryptString: (plain) => Buffer.from([...Buffer.from(plain)].map((b) => b ^ 0x5a)),
  decryptString: (enc) => Buffer.from([...enc].map((b) => b ^ 0x5a)).toString(),
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-secrets-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("SecretStore", () => {
  it("keeps keys encrypted on disk and hands them to providers as environment variables", async () => {
    const store = new SecretStore(path.join(dir, "secrets.json"), keychain);
    store.set("anthropic", "  sk-ant-secret-value  ");
    expect(store.names()).toEqual(["anthropic"]);
    const text = await readFile(store.file, "utf8");
    expect(text).not.toContain("sk-ant-secret-value");
    const env: NodeJS.ProcessEnv = {};
    expect(store.applyToEnvironment(env)).toEqual(["anthropic"]);
    expect(env.ANTHROPIC_API_KEY).toBe("sk-ant-secret-value");
  });

  it("never overrides a key the user set in the environment", () => {
    const store = new SecretStore(path.join(dir, "secrets.json"), keychain);
    store.set("openai", "stored");
    const env: NodeJS.ProcessEnv = { OPENAI_API_KEY: "from-env" };
    expect(store.applyToEnvironment(env)).toEqual([]);
    expect(env.OPENAI_API_KEY).toBe("from-env");
  });

  it("refuses to store anything without keychain encryption, and says what to do instead", () => {
    const store = new SecretStore(path.join(dir, "secrets.json"), {
      ...keychain,
      isEncryptionAvailable: () => false,
    });
    expect(() => store.set("openai", "x")).toThrow(/Set OPENAI_API_KEY in the environment instead/);
    expect(store.names()).toEqual([]);
  });

  it("removes a key", () => {
    const store = new SecretStore(path.join(dir, "secrets.json"), keychain);
    store.set("brave", "b");
    expect(store.remove("brave")).toBe(true);
    expect(store.remove("brave")).toBe(false);
    expect(store.names()).toEqual([]);
  });
});
