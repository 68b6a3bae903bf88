/**
 * A request the host refuses on purpose (not a bug): the router passes its message to the caller
 * as-is and does not report it as a handler failure.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
}
