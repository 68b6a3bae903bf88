import type { IncomingHttpHeaders } from "node:http";
import { ToolCallError } from "../../errors/tool-call-error.ts";
import {
  checkFetchableUrl,
  resolveFetchTarget,
  type FetchTarget,
  type TargetPolicy,
} from "./fetch-target.ts";
import type { BodyFilter } from "./html-noise-filter.ts";
import { BodyEncodingError, MAX_HEADER_BYTES, requestOnce } from "./safe-request.ts";
import { urlInMessage } from "./url-in-message.ts";

const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

interface GuardedFetchOptions extends TargetPolicy {
  headers: Record<string, string>;
  maxBytes: number;
  /** A person's abort: ends the fetch with its reason, whatever has arrived. */
  signal: AbortSignal;
  /**
   * The time limit of the whole fetch, redirects included: before the final response's headers
   * it ends the fetch with its reason; while that body is read, what arrived is returned instead
   * (`unfinished`), unless nothing had.
   */
  deadline?: AbortSignal;
  /** Judge a final response's status and headers before its body is read; throw to refuse it. */
  accept?(status: number, headers: IncomingHttpHeaders, url: URL): void;
  /**
   * Called before following a redirect to another host or port (the permission rules and
   * approvals of that origin, as the first URL had); throw to refuse it.
   */
  beforeRedirect?(from: URL, to: URL): Promise<void>;
  /** Also trust this CA (tests' loopback HTTPS servers; production trusts the system's only). */
  ca?: string;
  /** A filter for the final response's body, before maxBytes counts it (see requestOnce). */
  filterBody?(headers: IncomingHttpHeaders): BodyFilter | undefined;
  /** Stop reading the final body after this many decompressed bytes, kept or filtered out. */
  maxScannedBytes?: number;
}

interface FetchedResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  cut: boolean;
  /** The deadline fired while the body was arriving: `body` is only the start of it. */
  unfinished: boolean;
  /** Decompressed bytes read, kept or filtered out. */
  scanned: number;
  /** Bytes `filterBody`'s filter left out. */
  skipped: number;
  /** Reading stopped at `maxScannedBytes` (`cut` is true too). */
  scanLimited: boolean;
}

function networkError(url: URL, err: unknown): ToolCallError {
  if (ToolCallError.isInstance(err)) return err;
  if (err instanceof BodyEncodingError) {
    return new ToolCallError(
      `web_fetch could not read ${urlInMessage(url)}: ${err.message}.`,
      "fetch_failed",
      {
        cause: err,
      },
    );
  }
  const e = err as NodeJS.ErrnoException;
  const code = e.code ?? "";
  const why: Record<string, string> = {
    ECONNREFUSED: "the connection was refused (nothing is listening there)",
    ECONNRESET: "the server closed the connection",
    EHOSTUNREACH: "the host is unreachable",
    ENETUNREACH: "the network is unreachable",
    ETIMEDOUT: "the connection timed out",
    HPE_INVALID_CONSTANT: "the server did not answer with valid HTTP",
    HPE_HEADER_OVERFLOW: `the server sent more than ${MAX_HEADER_BYTES / 1024} KB of response headers, more than web_fetch reads`,
  };
  const reason =
    why[code] ??
    (code.startsWith("ERR_TLS") || /certificate/i.test(e.message)
      ? `its TLS certificate was refused (${e.message})`
      : e.message);
  return new ToolCallError(
    `web_fetch could not fetch ${urlInMessage(url)}: ${reason}${code && !reason.includes(code) ? ` (${code})` : ""}.`,
    "fetch_failed",
    {
      cause: err,
    },
  );
}

/**
 * A page served over https may not send web_fetch to plain http: what it asks for would cross the
 * network unencrypted, and a man in the middle could answer it.
 */
function refuseDowngrade(from: URL, to: URL): void {
  if (from.protocol !== "https:" || to.protocol !== "http:") return;
  throw new ToolCallError(
    `The page at ${urlInMessage(from)} redirected to an insecure http address, ${urlInMessage(to)}: web_fetch does not follow a redirect from https to http. Fetch that address directly if you trust it.`,
    "insecure_redirect",
  );
}

/**
 * A public page may not lead web_fetch into a private network, not even to a host a person
 * allowed: that setting lets the person's own fetches reach a local server, not any site's
 * redirects. A private host may still redirect within private hosts.
 */
function refusePublicToPrivate(from: FetchTarget, to: FetchTarget): void {
  if (from.privateReason !== undefined || to.privateReason === undefined) return;
  throw new ToolCallError(
    `${urlInMessage(from.url)} is on the public internet and ${to.url.host} is on a private network (${to.privateReason}); web_fetch does not let a public page lead it into a private network, even to a host allowed in web.fetch.allowPrivateHosts. Fetch that address directly if you mean to.`,
    "address_refused",
  );
}

/**
 * GET a URL, following up to five redirects by hand. Every hop's URL is checked and its host
 * resolved and validated again (see `resolveFetchTarget`), and the connection goes to the
 * validated address only. A redirect to another host or port goes through `beforeRedirect`; one
 * from https to http, or from a public host into a private one, is refused. Throws ToolCallError for refusals and network failures, and the
 * signal's reason when it aborts.
 */
export async function guardedFetch(start: URL, options: GuardedFetchOptions): Promise<FetchedResponse> {
  let url = start;
  let from: FetchTarget | undefined;
  /** Every URL asked so far, to tell a loop. */
  const visited = [url.href];
  const { signal, deadline } = options;
  const either = deadline ? AbortSignal.any([signal, deadline]) : signal;
  for (let hop = 0; ; hop++) {
    if (from) refuseDowngrade(from.url, url);
    let target: FetchTarget;
    try {
      if (from) checkFetchableUrl(url);
      target = await resolveFetchTarget(url, options, either);
      if (from) {
        refusePublicToPrivate(from, target);
        // Rules and approvals are per origin: another port of the same host is another server.
        if (url.host !== from.url.host) await options.beforeRedirect?.(from.url, url);
      }
    } catch (err) {
      if (!from || !ToolCallError.isInstance(err)) throw err;
      throw new ToolCallError(
        `${urlInMessage(from.url)} redirected to ${urlInMessage(url)}, which web_fetch will not follow: ${err.message}`,
        err.code,
        {
          cause: err,
        },
      );
    }
    let response;
    try {
      response = await requestOnce({
        url,
        addresses: target.addresses,
        headers: options.headers,
        maxBytes: options.maxBytes,
        signal,
        ...(deadline ? { deadline } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
        ...(options.filterBody ? { filterBody: options.filterBody } : {}),
        ...(options.maxScannedBytes !== undefined ? { maxScannedBytes: options.maxScannedBytes } : {}),
        wantBody: (status, headers) => {
          if (REDIRECT_STATUSES.has(status) && headers.location) return false;
          options.accept?.(status, headers, url);
          return true;
        },
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (deadline?.aborted) throw deadline.reason;
      throw networkError(url, err);
    }
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.status) || !location) return { url, ...response };

    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new ToolCallError(
        `${urlInMessage(url)} redirected to "${urlInMessage(location)}", which is not a valid URL.`,
        "bad_redirect",
      );
    }
    next.hash = "";
    const seen = visited.indexOf(next.href);
    if (seen >= 0) {
      const loop = [...visited.slice(seen), next.href].map(urlInMessage).join(" → ");
      throw new ToolCallError(
        `The redirects of ${urlInMessage(start)} go in a loop (${loop}): the site may want a cookie or a login, which web_fetch does not keep. Look for another URL with this content.`,
        "redirect_loop",
      );
    }
    if (hop >= MAX_REDIRECTS) {
      throw new ToolCallError(
        `web_fetch stopped after ${MAX_REDIRECTS} redirects (the last one from ${urlInMessage(url)} to ${urlInMessage(next)}). Fetch the final URL directly if you know it.`,
        "too_many_redirects",
      );
    }
    from = target;
    url = next;
    visited.push(url.href);
  }
}
