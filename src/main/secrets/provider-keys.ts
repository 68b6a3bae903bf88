import {
  SecretNameSchema,
  type PROVIDER_KEY_VARIABLES,
  type SecretsStatus,
} from "../../shared/secret-schemas.ts";
import { SECRET_NAMES, type SecretName, type SecretStore } from "./secret-store.ts";

// The contract's names are names the store keeps, handed over as the same variables.
const VARIABLES: typeof PROVIDER_KEY_VARIABLES = SECRET_NAMES;
const NAMES: readonly SecretName[] = SecretNameSchema.options;

interface ProviderKeysOptions {
  /** Where keys are kept (encrypted with the OS keychain); without one, this host keeps none. */
  store?: SecretStore;
  /** The environment providers read their keys from; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
  /** Why this host keeps no keys, naming the variable(s) to set instead; a generic sentence by default. */
  withoutKeychain?(variables: string): string;
}

/**
 * The provider keys of one process: those kept in the keychain, and the environment they are handed
 * to providers through. It remembers which variables it set itself, so removing a key unsets only
 * those — a variable the user set is never overridden nor removed. Shared by every UI of the process.
 */
export class ProviderKeys {
  private readonly store: SecretStore | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly withoutKeychain: (variables: string) => string;
  private readonly setByLathe = new Set<SecretName>();

  constructor(options: ProviderKeysOptions = {}) {
    this.store = options.store;
    this.env = options.env ?? process.env;
    this.withoutKeychain =
      options.withoutKeychain ??
      ((variables) =>
        `This host has no access to the OS keychain: set ${variables} in its environment instead.`);
  }

  /** Hand every stored key to the environment, unless the user set that variable; returns the names handed. */
  applyStored(): SecretName[] {
    if (!this.store) return [];
    const applied = this.store.applyToEnvironment(this.env);
    for (const name of applied) this.setByLathe.add(name);
    return applied;
  }

  /** Which keys are stored and which the environment provides; never a value. */
  status(): SecretsStatus {
    const refusal = this.refusal();
    const stored = new Set(this.store?.names() ?? []);
    return {
      available: refusal === undefined,
      ...(refusal === undefined ? {} : { explanation: refusal }),
      stored: NAMES.filter((name) => stored.has(name)),
      fromEnvironment: NAMES.filter((name) => this.fromEnvironment(name)),
    };
  }

  /** Why a key cannot be stored here (naming its variable, or all of them), or undefined when it can. */
  refusal(name?: SecretName): string | undefined {
    const variables = name ? VARIABLES[name] : listed(NAMES.map((n) => VARIABLES[n]));
    if (!this.store) return this.withoutKeychain(variables);
    if (!this.store.available()) {
      return `This system offers no keychain encryption, so Lathe stores no keys: set ${variables} in the environment of Lathe instead.`;
    }
    return undefined;
  }

  /** Keep the key (encrypted) and hand it to the next run, unless the user's own variable is set. */
  set(name: SecretName, value: string): void {
    const refused = this.refusal(name);
    if (refused !== undefined || !this.store) throw new Error(refused);
    this.store.set(name, value);
    this.handOver(name);
  }

  /** Forget a stored key and unset the variable Lathe set from it; false when none was stored. */
  remove(name: SecretName): boolean {
    if (!this.store) throw new Error(this.refusal(name));
    const removed = this.store.remove(name);
    if (this.setByLathe.delete(name)) delete this.env[VARIABLES[name]];
    return removed;
  }

  /** Whether the key comes from a variable the user set (not one Lathe set from the keychain). */
  fromEnvironment(name: SecretName): boolean {
    return Boolean(this.env[VARIABLES[name]]) && !this.setByLathe.has(name);
  }

  private handOver(name: SecretName): void {
    if (!this.store || this.fromEnvironment(name)) return;
    const variable = VARIABLES[name];
    // Decrypted into a scratch environment first: a value Lathe handed over earlier is replaced.
    const decrypted: NodeJS.ProcessEnv = {};
    this.store.applyToEnvironment(decrypted);
    const value = decrypted[variable];
    if (value) {
      this.env[variable] = value;
      this.setByLathe.add(name);
    } else if (this.setByLathe.delete(name)) {
      delete this.env[variable];
    }
  }
}

function listed(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}
