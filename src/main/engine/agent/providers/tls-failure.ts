/** Codes that mean the server's certificate is not one Node trusts. */
const CERTIFICATE_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** Why a TLS connection failed: the server does not speak TLS, or its certificate is not trusted. */
export interface TlsFailure {
  kind: "not-tls" | "certificate";
  code: string;
  message: string;
}

/**
 * The TLS failure behind a failed request (fetch says only "fetch failed"), found by walking
 * `cause` chains; undefined when the failure is not a TLS one.
 */
export function tlsFailure(error: unknown, depth = 0): TlsFailure | undefined {
  if (depth > 8 || typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string") {
    const text = typeof message === "string" ? message : code;
    if (CERTIFICATE_CODES.has(code)) return { kind: "certificate", code, message: text };
    if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "ERR_SSL_PACKET_LENGTH_TOO_LONG") {
      return { kind: "not-tls", code, message: text };
    }
  }
  return tlsFailure((error as { cause?: unknown }).cause, depth + 1);
}

/** What to do about a TLS failure of `who`, whose address is the setting `setting`. */
export function describeTlsFailure(failure: TlsFailure, who: string, setting: string): string {
  return failure.kind === "not-tls"
    ? `${who} does not speak TLS (https) on that port (${failure.code}): if it serves plain http, write the address with http:// in ${setting}.`
    : `${who} could not be reached: its TLS certificate is not trusted (${failure.code}: ${failure.message}). If the server uses a certificate of its own (self-signed, or from your organisation's authority), export NODE_EXTRA_CA_CERTS=<its CA certificate, PEM> before running lathe; otherwise check ${setting}.`;
}
