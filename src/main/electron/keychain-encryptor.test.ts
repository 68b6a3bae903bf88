import { describe, expect, it } from "vitest";
import { keychainEncryptor, type SafeStorageLike } from "./keychain-encryptor.ts";

function safeStorage(available: boolean, backend?: string): SafeStorageLike {
  return {
    isEncryptionAvailable: () => available,
    encryptString: (plain) => Buffer.from(plain).reverse(),
    decryptString: (encrypted) => Buffer.from(encrypted).reverse().toString(),
    ...(backend === undefined ? {} : { getSelectedStorageBackend: () => backend }),
  };
}

describe("keychainEncryptor", () => {
  it.each<[string, NodeJS.Platform, SafeStorageLike, boolean]>([
    ["macOS with its Keychain", "darwin", safeStorage(true), true],
    ["Windows with DPAPI", "win32", safeStorage(true), true],
    ["Linux with the secret service", "linux", safeStorage(true, "gnome_libsecret"), true],
    ["Linux with KWallet", "linux", safeStorage(true, "kwallet5"), true],
    ["Linux with Chromium's built-in password only", "linux", safeStorage(true, "basic_text"), false],
    ["Linux with an unknown backend", "linux", safeStorage(true, "unknown"), false],
    ["Linux when the backend cannot be asked", "linux", safeStorage(true), false],
    ["any system whose safeStorage is unavailable", "darwin", safeStorage(false), false],
  ])("on %s, keys can be stored: %s", (_label, platform, storage, expected) => {
    expect(keychainEncryptor(storage, platform).isEncryptionAvailable()).toBe(expected);
  });

  it("encrypts and decrypts with safeStorage itself", () => {
    const encryptor = keychainEncryptor(safeStorage(true), "darwin");
    const encrypted = encryptor.encryptString("sk-secret");
    expect(encrypted.toString()).not.toBe("sk-secret");
    expect(encryptor.decryptString(encrypted)).toBe("sk-secret");
  });
});
