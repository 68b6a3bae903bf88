import { LatheError } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";

/**
 * Run a handler's work so that Lathe's refusals (an invalid settings file, a session in use, a
 * review that is out of date) reach the person as they are, not as "<channel> failed: …": they
 * are typed errors whose message already says what to do. Anything else is left to the router.
 */
export async function refusing<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (LatheError.isInstance(error)) throw new ApiError(error.message, { cause: error });
    throw error;
  }
}
