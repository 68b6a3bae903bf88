import { PROVIDER_KEY_VARIABLES } from "../../shared/secret-schemas.ts";
import type { ProviderKeys } from "../secrets/provider-keys.ts";
import { ApiError } from "./api-error.ts";
import type { ApiHandlers } from "./api-router.ts";

/**
 * The `secrets.*` channels over the process's provider keys. No answer ever carries a value: a
 * key goes from the UI to the keychain once, and comes back only as the name of what is stored.
 */
export function createSecretHandlers(
  keys: ProviderKeys,
): Pick<ApiHandlers, "secrets.status" | "secrets.set" | "secrets.remove"> {
  return {
    "secrets.status": () => keys.status(),
    "secrets.set": ({ name, value }) => {
      const refused = keys.refusal(name);
      if (refused !== undefined) throw new ApiError(refused);
      keys.set(name, value);
      return keys.status();
    },
    "secrets.remove": ({ name }) => {
      const refused = keys.refusal(name);
      if (refused !== undefined && !keys.status().stored.includes(name)) throw new ApiError(refused);
      if (!keys.remove(name)) {
        const fromEnvironment = keys.fromEnvironment(name)
          ? ` The ${name} key in use comes from ${PROVIDER_KEY_VARIABLES[name]} in the environment: unset it there.`
          : "";
        throw new ApiError(
          `No ${name} key is stored in the keychain, so there is nothing to remove.${fromEnvironment}`,
        );
      }
      return keys.status();
    },
  };
}
