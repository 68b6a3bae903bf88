import type { IncomingHttpHeaders } from "node:http";
import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { Settings } from "../config/lathe-settings.ts";
import type { ToolDefinition, Truncation } from "../tools/contract.ts";
import { OUTPUT_LIMITS, textLeftOut, utf8Head } from "../tools/truncation.ts";
import { offload } from "../offload/offload.ts";
import { defineBuiltin } from "./define-builtin.ts";
import {
  binaryBodyReason,
  bodyKind,
  decodeBody,
  mediaType,
  sniffKind,
  type BodyKind,
} from "./web/body-text.ts";
import {
  checkFetchableUrl,
  checkHostAsWritten,
  parseFetchUrl,
  type AddressClassifier,
  type LookupAll,
} from "./web/fetch-target.ts";
import { guardedFetch } from "./web/guarded-fetch.ts";
import { HtmlNoiseFilter } from "./web/html-noise-filter.ts";
import { urlInMessage } from "./web/url-in-message.ts";
import { counted } from "../tools/counted.ts";

export type WebFetchSettings = Settings["web"]["fetch"];

export interface WebFetchData {
  url: string;
  final_url: string;
  status: number;
  content_type: string;
  title?: string;
  content: string;
}

export interface WebFetchOptions {
  /** Host name resolution (tests substitute a fake resolver). */
  lookup?: LookupAll;
  /** Where a person adds allowPrivateHosts, for refusal messages. */
  settingsFile?: string;
  /**
   * Which addresses are private (tests substitute one so a loopback server can play a public
   * site; production always uses the built-in table).
   */
  classifyAddress?: AddressClassifier;
  /** A CA to trust besides the system's (tests' loopback HTTPS servers). */
  trustedCa?: string;
}

const USER_AGENT = "Mozilla/5.0 (compatible; Lathe web_fetch; +https://github.com/lathe)";

function formatBytes(n: number): string {
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

function description(settings: WebFetchSettings): string {
  return `Fetch one http:// or https:// URL and return its readable content: HTML as markdown, other text types as they are; images, PDFs and other binary types are refused. Redirects are followed, but not from https to http. A non-2xx status still returns the page: check status.

Local and private addresses are refused unless a person allowed the host in settings. The body is cut at max_bytes (default and cap ${formatBytes(settings.maxBytes)}); the fetch must finish within ${Math.round(settings.timeoutMs / 1000)} s (a page still arriving then comes back cut, with a note saying so). Content over 200 KB comes back truncated, with output_path holding all of it.`;
}

// The same whatever the settings (the default and the cap of max_bytes are in the description),
// so the bundle's catalog can hold it; built when first needed (see defineBuiltin).
const schema = () =>
  z.strictObject({
    url: z.string().min(1),
    max_bytes: z.number().int().min(1).optional(),
  });

/** The approval key: the URL's origin, so "always" covers one site. */
function originOf(text: string): string {
  try {
    const url = new URL(text.trim());
    return url.origin === "null" ? url.href : url.origin;
  } catch {
    return text;
  }
}

function refuseBinary(type: string, url: URL, label?: string): never {
  const labelled = label ? ` (the server labelled it ${label})` : "";
  throw new ToolCallError(
    `web_fetch got ${type} from ${urlInMessage(url)}${labelled}, which is not text; it only returns HTML, text, JSON and XML. Look for an HTML or text version of this resource instead.`,
    "binary_content",
  );
}

function contentTypeOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["content-type"];
  return Array.isArray(value) ? value[0] : value;
}

/** How the note on a page web_fetch did not read to its end begins (it ends the content). */
const NOTE_START = "\n\n[web_fetch stopped reading after ";

/**
 * The first `maxBytes` of a page's text, ending on a whole line, unless that would leave out
 * most of it (a long paragraph, minified text after a short first line): then it ends inside the
 * line, on a whole character.
 */
function contentHead(text: string, maxBytes: number): string {
  const head = utf8Head(text, maxBytes);
  if (head.length === text.length || Buffer.byteLength(head, "utf8") >= maxBytes / 2) return head;
  const bytes = Buffer.from(text, "utf8");
  let end = maxBytes;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/**
 * Cut the content for the model like other tools (head shown, all of it in a sidecar), but keep
 * the note that ends it: when the page was itself cut, the model must still read that the
 * sidecar is not the whole page. The head is the body's, the note follows it.
 */
function truncateContent(data: WebFetchData): Truncation<WebFetchData> | undefined {
  const limit = OUTPUT_LIMITS.webFetchBytes;
  if (Buffer.byteLength(data.content, "utf8") <= limit) return undefined;
  const at = data.content.lastIndexOf(NOTE_START);
  const note = at >= 0 && data.content.endsWith("]") ? data.content.slice(at) : "";
  const body = note === "" ? data.content : data.content.slice(0, at);
  const head = contentHead(body, limit - Buffer.byteLength(note, "utf8"));
  return {
    data: { ...data, content: head + note },
    full: data.content,
    leftOut: textLeftOut(body, head),
  };
}

/**
 * How many bytes of a page web_fetch reads at most, in multiples of web.fetch.maxBytes, counting
 * the scripts and styles it leaves out (which do not count against max_bytes).
 */
const SCAN_FACTOR = 4;

const MOST_IT_READS = " That is the most web_fetch reads; look for a smaller page or a more specific URL.";

function cutNote(maxBytes: number, ceiling: number, skipped: number): string {
  const more =
    maxBytes < ceiling
      ? ` Call again with a larger max_bytes (up to ${ceiling}) to get more.`
      : MOST_IT_READS;
  const left =
    skipped > 0
      ? ` (not counting ${counted(skipped, "byte")} of scripts and styles, which it leaves out)`
      : "";
  return `${NOTE_START}${counted(maxBytes, "byte")} of the body${left}: the page is longer and was cut here.${more}]`;
}

function scanLimitNote(scanned: number): string {
  return `${NOTE_START}${counted(scanned, "byte")} of the body, most of them scripts and styles, which it leaves out: the page is longer and was cut here.${MOST_IT_READS}]`;
}

function unfinishedNote(timeoutMs: number, bytes: number): string {
  const seconds = Number((timeoutMs / 1000).toFixed(2));
  return `${NOTE_START}${seconds} s (its time limit) while the server was still sending: this is only the start of the page (${counted(bytes, "byte")} of the body). Try again later for the whole page, or fetch a smaller or more specific URL.]`;
}

/**
 * The web_fetch tool: one page over http(s), SSRF-safe (every hop's host resolved once and
 * checked, the connection pinned to the checked address), capped in bytes and time, HTML turned
 * into markdown.
 */
export function webFetchTool(
  settings: WebFetchSettings,
  options: WebFetchOptions = {},
): ToolDefinition<{ url: string; max_bytes?: number }, WebFetchData> {
  const definition = defineBuiltin({
    id: "web_fetch",
    description: description(settings),
    schema,
    requires: { net: { hosts: ["*"] } },
    readOnly: true,
    gated: true,
    kind: "fetch",
    // The fetch's own deadline (with a clearer message) fires first.
    timeoutMs: settings.timeoutMs + 5_000,
    deriveApprovalKey: (args) => `web_fetch:${originOf(args.url)}`,
    truncate: truncateContent,
    async execute(args, runtime): Promise<WebFetchData> {
      const start = parseFetchUrl(args.url);
      checkFetchableUrl(start);
      start.hash = "";
      const maxBytes = Math.min(args.max_bytes ?? settings.maxBytes, settings.maxBytes);
      // Kept apart from the person's abort: when it fires in the middle of the body, what arrived
      // is returned (see requestOnce); a person's Stop never returns a partial page.
      const deadline = AbortSignal.timeout(settings.timeoutMs);
      // The final response's kind, judged from its headers before the body is read.
      const seen: { kind: BodyKind } = { kind: "unknown" };
      let response;
      try {
        response = await guardedFetch(start, {
          allowPrivateHosts: settings.allowPrivateHosts,
          ...(options.lookup ? { lookup: options.lookup } : {}),
          ...(options.settingsFile ? { settingsFile: options.settingsFile } : {}),
          ...(options.classifyAddress ? { classify: options.classifyAddress } : {}),
          ...(options.trustedCa ? { ca: options.trustedCa } : {}),
          maxBytes,
          signal: runtime.signal,
          deadline,
          headers: {
            "User-Agent": USER_AGENT,
            Accept: "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5",
            "Accept-Encoding": "gzip, deflate, br, zstd",
          },
          // Scripts and styles never reach the model: left out as the page arrives, they do not
          // spend max_bytes before the text (a page may inline megabytes of them first).
          filterBody: (headers) =>
            bodyKind(contentTypeOf(headers)) === "html" ? new HtmlNoiseFilter() : undefined,
          maxScannedBytes: SCAN_FACTOR * settings.maxBytes,
          accept: (_status, headers, url) => {
            seen.kind = bodyKind(contentTypeOf(headers));
            if (seen.kind === "binary") refuseBinary(mediaType(contentTypeOf(headers)), url);
          },
          beforeRedirect: async (_from, to) => {
            await runtime.authorize({ capability: "net.fetch", url: to.href });
          },
        });
      } catch (err) {
        if (deadline.aborted && !runtime.signal.aborted) {
          throw new ToolCallError(
            `web_fetch gave up on ${urlInMessage(start)} after ${settings.timeoutMs} ms: the server was too slow to answer or to send the page. Try again later, or fetch a smaller page.`,
            "timeout",
          );
        }
        throw err;
      }

      const contentType = contentTypeOf(response.headers);
      const kind = seen.kind === "unknown" ? sniffKind(response.body) : seen.kind;
      if (kind === "binary")
        refuseBinary(
          contentType ? mediaType(contentType) : "a body with no content type that looks binary",
          response.url,
        );
      // A server's label is not the body: a PDF, an image or an archive sent as text/html would
      // otherwise reach the model as a page of mojibake.
      const disguised = binaryBodyReason(response.body, contentType);
      if (disguised !== undefined) refuseBinary(disguised, response.url, mediaType(contentType));
      const text = decodeBody(response.body, contentType, kind, response.cut || response.unfinished);
      const note = response.scanLimited
        ? scanLimitNote(response.scanned)
        : response.cut
          ? cutNote(maxBytes, settings.maxBytes, response.skipped)
          : response.unfinished
            ? unfinishedNote(settings.timeoutMs, response.body.length)
            : "";
      const base = {
        url: args.url,
        final_url: response.url.href,
        status: response.status,
        content_type: contentType ?? "",
      };
      if (kind === "html") {
        // Converting HTML (turndown and its DOM) costs time in proportion to the page, up to seconds
        // for a large one: it runs on an offload worker, which also loads the converter.
        const page = await offload(
          "web.htmlToMarkdown",
          { html: text, baseUrl: response.url.href },
          { signal: runtime.signal },
        );
        return {
          ...base,
          ...(page.title !== undefined ? { title: page.title } : {}),
          content: page.markdown + note,
        };
      }
      return { ...base, content: text + note };
    },
  });
  return {
    ...definition,
    // Refuse what is not an http(s) URL, and a host written as a private address or localhost
    // that settings do not allow, before any approval is asked (approving it would not let it
    // through); the host goes to the rules.
    plan: (args) => {
      const url = parseFetchUrl(args.url);
      checkFetchableUrl(url);
      checkHostAsWritten(url, {
        allowPrivateHosts: settings.allowPrivateHosts,
        ...(options.settingsFile ? { settingsFile: options.settingsFile } : {}),
        ...(options.classifyAddress ? { classify: options.classifyAddress } : {}),
      });
      return { accesses: [{ capability: "net.fetch", url: args.url }], unclear: [] };
    },
  };
}
