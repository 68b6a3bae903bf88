import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { LookupAddress, LookupOneOptions } from "node:dns";
import type { Readable, Transform } from "node:stream";
import type { ResolvedAddress } from "./fetch-target.ts";
import type { BodyFilter } from "./html-noise-filter.ts";

interface RequestSpec {
  url: URL;
  /** Connect only to these (already validated) addresses; absent: the system resolver picks. */
  addresses?: readonly ResolvedAddress[];
  headers: Record<string, string>;
  /** The HTTP method (default GET). */
  method?: string;
  /** A request body (a plugin's POST); none by default. */
  body?: string;
  /** Stop reading once this many decompressed body bytes have arrived. */
  maxBytes: number;
  /** A person's abort: ends the request at once, whatever has arrived, with its reason. */
  signal: AbortSignal;
  /**
   * A time limit kept apart from `signal`: before the headers it ends the request with its
   * reason; once the body is being read it stops reading and the body read so far is returned
   * (`unfinished`), or its reason when not one byte of the body had arrived.
   */
  deadline?: AbortSignal;
  /**
   * Look at the status and headers before the body is read: return false to skip the body (a
   * redirect), throw to refuse the response (the connection is closed without reading it).
   */
  wantBody?(status: number, headers: IncomingHttpHeaders): boolean;
  /** Also trust this CA for https (tests' loopback servers); the system's CAs stay trusted. */
  ca?: string;
  /**
   * A filter for the body about to be read (after `wantBody`), applied to the decompressed bytes
   * before `maxBytes` counts them: what it leaves out costs nothing of the cap.
   */
  filterBody?(headers: IncomingHttpHeaders): BodyFilter | undefined;
  /** Stop reading once this many decompressed bytes arrived, kept or left out by the filter. */
  maxScannedBytes?: number;
}

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The decompressed body, at most `maxBytes`. */
  body: Buffer;
  /** True when the body was longer than `maxBytes` and reading stopped there. */
  cut: boolean;
  /** True when `deadline` fired while the body was still arriving: `body` is only its start. */
  unfinished: boolean;
  /** Decompressed bytes read, kept or not. */
  scanned: number;
  /** Bytes the filter left out. */
  skipped: number;
  /** True when reading stopped at `maxScannedBytes` (then `cut` is true too). */
  scanLimited: boolean;
}

/**
 * The most response header bytes read (Node's default is 16 KB; sites with large cookies or
 * security policies send more, and browsers read far more).
 */
export const MAX_HEADER_BYTES = 128 * 1024;

/** An error about the body's encoding, as opposed to the connection. */
export class BodyEncodingError extends Error {}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for net.connect that answers with the validated addresses and never asks DNS again. */
function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: LookupOneOptions | { all: true }, callback: LookupCallback): void => {
    const first = addresses[0] as ResolvedAddress;
    if ("all" in options && options.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, first.address, first.family);
  };
}

/**
 * Node's HTTP client modules, taken when the first request is made (https brings TLS with it):
 * a start that fetches nothing never loads them. `getBuiltinModule` rather than `import`: an ESM
 * import of node:http also runs its lazy exports, which load a second HTTP stack (undici).
 */
function tlsModule() {
  return process.getBuiltinModule("node:tls");
}

function httpModules() {
  return {
    http: process.getBuiltinModule("node:http"),
    https: process.getBuiltinModule("node:https"),
    zlib: process.getBuiltinModule("node:zlib"),
  };
}

/**
 * How many content-encodings one body may stack (`gzip, br`): real servers use one, rarely two;
 * a header listing thousands would make as many decompressors (curl stops at five too).
 */
const MAX_ENCODINGS = 5;

/** 2^23 bytes: the 8 MB window HTTP's zstd content-encoding allows. */
const ZSTD_MAX_WINDOW_LOG = 23;

function decoders(encodingHeader: string | undefined): Transform[] {
  const { zlib } = httpModules();
  const encodings = (encodingHeader ?? "")
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "" && e !== "identity");
  if (encodings.length > MAX_ENCODINGS) {
    throw new BodyEncodingError(
      `the server stacked ${encodings.length} content-encodings on one body (${encodings.slice(0, 3).join(", ")}, …); web_fetch decodes at most ${MAX_ENCODINGS}`,
    );
  }
  return encodings.reverse().map((encoding) => {
    switch (encoding) {
      case "gzip":
      case "x-gzip":
        return zlib.createGunzip();
      case "deflate":
        return zlib.createInflate();
      case "br":
        return zlib.createBrotliDecompress();
      case "zstd":
        // A zstd frame declares the window its decoder must hold (up to gigabytes); HTTP senders
        // keep to 8 MB (RFC 9659), so a larger one is refused rather than allocated.
        return zlib.createZstdDecompress({
          params: { [zlib.constants.ZSTD_d_windowLogMax]: ZSTD_MAX_WINDOW_LOG },
        });
      default:
        throw new BodyEncodingError(
          `the server used the content-encoding "${encoding}", which web_fetch cannot decode`,
        );
    }
  });
}

/**
 * Read a response body through its decompressors, keeping at most `maxBytes` of output. The
 * streams are torn down as soon as the cap is passed, so a compression bomb stops at the cap
 * (at most one decompressor chunk past it) instead of inflating into memory.
 */
function readCapped(
  res: IncomingMessage,
  maxBytes: number,
  deadline: AbortSignal | undefined,
  filter: BodyFilter | undefined,
  maxScanned: number,
): Promise<Omit<RawResponse, "status" | "headers">> {
  return new Promise((resolve, reject) => {
    let chain: Transform[];
    try {
      chain = decoders(res.headers["content-encoding"]);
    } catch (err) {
      res.destroy();
      reject(err as Error);
      return;
    }
    const streams: Readable[] = [res, ...chain];
    for (let i = 0; i < chain.length; i++) (streams[i] as Readable).pipe(chain[i] as Transform);
    const chunks: Buffer[] = [];
    let total = 0;
    let scanned = 0;
    let settled = false;
    const teardown = (): void => {
      deadline?.removeEventListener("abort", onDeadline);
      for (const s of streams) s.destroy();
    };
    const finish = (cut: boolean, unfinished = false, scanLimited = false): void => {
      if (settled) return;
      settled = true;
      teardown();
      const skipped = filter?.skipped ?? 0;
      resolve({ body: Buffer.concat(chunks, total), cut, unfinished, scanned, skipped, scanLimited });
    };
    /** Keep what fits of `kept`; false when the cap was passed (and the read finished). */
    const keep = (kept: Buffer): boolean => {
      const room = maxBytes - total;
      if (kept.length > room) {
        if (room > 0) chunks.push(kept.subarray(0, room));
        total += Math.max(room, 0);
        finish(true);
        return false;
      }
      chunks.push(kept);
      total += kept.length;
      return true;
    };
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      teardown();
      reject(err);
    };
    // Handled here, synchronously, rather than through the request's signal: Node reports an
    // aborted request on the next tick, before any promise callback, and would discard the body.
    function onDeadline(): void {
      if (total > 0) finish(false, true);
      else fail((deadline as AbortSignal).reason as Error);
    }
    if (deadline?.aborted) {
      onDeadline();
      return;
    }
    deadline?.addEventListener("abort", onDeadline, { once: true });
    const last = streams[streams.length - 1] as Readable;
    last.on("data", (chunk: Buffer) => {
      if (settled) return;
      scanned += chunk.length;
      if (!keep(filter ? filter.push(chunk) : chunk)) return;
      if (scanned >= maxScanned) finish(true, false, true);
    });
    last.on("end", () => {
      if (settled) return;
      if (filter && !keep(filter.end())) return;
      finish(false);
    });
    res.on("error", fail);
    res.on("aborted", () => fail(new Error("the server closed the connection in the middle of the body")));
    for (const d of chain) {
      d.on("error", (err: NodeJS.ErrnoException) =>
        fail(
          new BodyEncodingError(
            err.code === "ZSTD_error_frameParameter_windowTooLarge"
              ? `the server sent a zstd body that needs a window over ${2 ** ZSTD_MAX_WINDOW_LOG / 1024 / 1024} MB to decode, more than HTTP allows and web_fetch holds`
              : `the server sent a body that is not valid ${res.headers["content-encoding"]} (${err.message})`,
          ),
        ),
      );
    }
  });
}

/**
 * One HTTP(S) request (a GET unless `method` says otherwise), no redirects followed: to the pinned addresses when given (Host and SNI stay
 * the URL's name), with the body decompressed and capped. Rejects on network errors, on abort
 * (with the signal's reason) and with whatever `wantBody` throws.
 */
export function requestOnce(spec: RequestSpec): Promise<RawResponse> {
  const { url, signal, deadline } = spec;
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const { http, https } = httpModules();
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    if (signal.aborted || deadline?.aborted) {
      reject((signal.aborted ? signal.reason : deadline?.reason) as Error);
      return;
    }
    // Until the headers arrive the deadline ends the request; after that readCapped watches it.
    const onDeadline = (): void => {
      req.destroy();
      reject(deadline?.reason as Error);
    };
    deadline?.addEventListener("abort", onDeadline, { once: true });
    const req = client.request({
      protocol: url.protocol,
      hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: spec.method ?? "GET",
      headers: spec.headers,
      agent: false,
      maxHeaderSize: MAX_HEADER_BYTES,
      signal,
      ...(spec.ca ? { ca: [...tlsModule().rootCertificates, spec.ca] } : {}),
      ...(spec.addresses && spec.addresses.length > 0 ? { lookup: pinnedLookup(spec.addresses) } : {}),
    });
    req.on("error", (err) => {
      deadline?.removeEventListener("abort", onDeadline);
      reject(signal.aborted ? (signal.reason as Error) : err);
    });
    req.on("response", (res) => {
      deadline?.removeEventListener("abort", onDeadline);
      const status = res.statusCode ?? 0;
      let read: boolean;
      try {
        read = spec.wantBody?.(status, res.headers) ?? true;
      } catch (err) {
        req.destroy();
        reject(err as Error);
        return;
      }
      if (!read) {
        req.destroy();
        resolve({
          status,
          headers: res.headers,
          body: Buffer.alloc(0),
          cut: false,
          unfinished: false,
          scanned: 0,
          skipped: 0,
          scanLimited: false,
        });
        return;
      }
      let filter: BodyFilter | undefined;
      try {
        filter = spec.filterBody?.(res.headers);
      } catch (err) {
        req.destroy();
        reject(err as Error);
        return;
      }
      readCapped(res, spec.maxBytes, deadline, filter, spec.maxScannedBytes ?? Infinity).then(
        (body) => {
          req.destroy();
          resolve({ status, headers: res.headers, ...body });
        },
        (err: unknown) => {
          req.destroy();
          reject(signal.aborted ? (signal.reason as Error) : (err as Error));
        },
      );
    });
    req.end(spec.body);
  });
}
