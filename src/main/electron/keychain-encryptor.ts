import type { Encryptor } from "../secrets/secret-store.ts";

/** The part of Electron's `safeStorage` Lathe uses (`getSelectedStorageBackend` exists on Linux only). */
export interface SafeStorageLike extends Encryptor {
  getSelectedStorageBackend?(): string;
}

/**
 * Backends that are no keychain: on Linux without a secret service, Electron falls back to a
 * password built into Chromium ("basic_text"), which is plain text to anyone who reads the file.
 */
const NO_KEYCHAIN = new Set(["basic_text", "unknown"]);

/**
 * Electron's `safeStorage` as the secret store's encryptor, reporting no encryption when the only
 * backend is one that does not really protect the key, so Lathe stores none and says why.
 */
export function keychainEncryptor(
  safeStorage: SafeStorageLike,
  platform: NodeJS.Platform = process.platform,
): Encryptor {
  return {
    isEncryptionAvailable() {
      if (!safeStorage.isEncryptionAvailable()) return false;
      if (platform !== "linux") return true;
      const backend = safeStorage.getSelectedStorageBackend?.() ?? "unknown";
      return !NO_KEYCHAIN.has(backend);
    },
    encryptString: (plain) => safeStorage.encryptString(plain),
    decryptString: (encrypted) => safeStorage.decryptString(encrypted),
  };
}
