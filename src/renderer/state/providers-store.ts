import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiResult, LatheApi } from "../../shared/api-contract.ts";
import type { SecretName, SecretsStatus } from "../../shared/secret-schemas.ts";

/** What the Providers section shows for one key. */
export type KeyState = "environment" | "stored" | "unset";

export interface ProvidersState {
  status: SecretsStatus | undefined;
  loadError: string | undefined;
  /** The key being saved or removed (its buttons are disabled meanwhile). */
  pending: SecretName | undefined;
  /** Why the last save or remove of a key failed. */
  actionError: { name: SecretName; message: string } | undefined;
  /** The key just saved, to confirm it. */
  saved: SecretName | undefined;
  load(): Promise<void>;
  /** Hand a key to the host to keep; resolves true once stored. The value is never kept here. */
  save(name: SecretName, value: string): Promise<boolean>;
  remove(name: SecretName): Promise<void>;
}

export type ProvidersStore = StoreApi<ProvidersState>;

/** Where a key comes from: the environment wins over the keychain, as it does for the providers. */
export function keyState(status: SecretsStatus, name: SecretName): KeyState {
  if (status.fromEnvironment.includes(name)) return "environment";
  if (status.stored.includes(name)) return "stored";
  return "unset";
}

export function createProvidersStore(api: LatheApi): ProvidersStore {
  return createStore<ProvidersState>()((set, get) => {
    /** One action at a time; its answer is the new status, or a message to show by that key. */
    const act = async (name: SecretName, run: () => Promise<ApiResult<SecretsStatus>>): Promise<boolean> => {
      if (get().pending) return false;
      set({ pending: name, actionError: undefined, saved: undefined });
      const answer = await run();
      set({ pending: undefined });
      if (!answer.ok) {
        set({ actionError: { name, message: answer.error.message } });
        return false;
      }
      set({ status: answer.data, loadError: undefined });
      return true;
    };

    return {
      status: undefined,
      loadError: undefined,
      pending: undefined,
      actionError: undefined,
      saved: undefined,

      async load() {
        const answer = await api.secrets.status();
        if (answer.ok) set({ status: answer.data, loadError: undefined });
        else set({ loadError: answer.error.message });
      },

      async save(name, value) {
        const stored = await act(name, () => api.secrets.set({ name, value }));
        if (stored) set({ saved: name });
        return stored;
      },

      async remove(name) {
        await act(name, () => api.secrets.remove({ name }));
      },
    };
  });
}
