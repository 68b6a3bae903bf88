import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/** What encrypts and decrypts with the OS keychain: Electron's `safeStorage` in the app. */
export interface Encryptor {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** The provider keys the app can keep, and the environment variable each is handed to the provider as. */
export const SECRET_NAMES = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  brave: "BRAVE_API_KEY",
} as const;
export type SecretName = keyof typeof SECRET_NAMES;

const SecretFileSchema = z.strictObject({
  version: z.literal(1),
  /** name → base64 of the keychain-encrypted value; never the value itself. */
  secrets: z.record(z.string(), z.string()),
});

/**
 * API keys for cloud providers, encrypted with the OS keychain (Electron `safeStorage`) in a
 * file of their own; never written in plain text. Without keychain encryption, nothing is
 * stored and the caller is told to use the environment instead.
 */
export class SecretStore {
  readonly file: string;
  private readonly encryptor: Encryptor;

  constructor(file: string, encryptor: Encryptor) {
    this.file = file;
    this.encryptor = encryptor;
  }

  private read(): Record<string, string> {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw err;
    }
    return SecretFileSchema.parse(JSON.parse(text)).secrets;
  }

  private write(secrets: Record<string, string>): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ version: 1, secrets }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
  }

  /** Whether keys can be stored: the OS keychain offers encryption. */
  available(): boolean {
    return this.encryptor.isEncryptionAvailable();
  }

  /** Which keys are stored (never their values). */
  names(): SecretName[] {
    return Object.keys(this.read()).filter((n): n is SecretName => n in SECRET_NAMES);
  }

  set(name: SecretName, value: string): void {
    if (!this.encryptor.isEncryptionAvailable()) {
      throw new Error(
        `This system offers no keychain encryption, so Lathe will not store the ${name} key. Set ${SECRET_NAMES[name]} in the environment instead.`,
      );
    }
    const trimmed = value.trim();
    if (trimmed === "") throw new Error(`The ${name} key is empty.`);
    const secrets = this.read();
    secrets[name] = this.encryptor.encryptString(trimmed).toString("base64");
    this.write(secrets);
  }

  remove(name: SecretName): boolean {
    const secrets = this.read();
    if (!(name in secrets)) return false;
    delete secrets[name];
    this.write(secrets);
    return true;
  }

  /**
   * Hand the stored keys to providers the way they read them: as environment variables of this
   * process, without overriding one the user set. Returns the names applied.
   */
  applyToEnvironment(env: NodeJS.ProcessEnv = process.env): SecretName[] {
    if (!this.encryptor.isEncryptionAvailable()) return [];
    const applied: SecretName[] = [];
    for (const [name, encrypted] of Object.entries(this.read())) {
      if (!(name in SECRET_NAMES)) continue;
      const variable = SECRET_NAMES[name as SecretName];
      if (env[variable]) continue;
      env[variable] = this.encryptor.decryptString(Buffer.from(encrypted, "base64"));
      applied.push(name as SecretName);
    }
    return applied;
  }
}
