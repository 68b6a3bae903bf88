// Who may call the API. Both checks take plain values so they are tested without Electron or a
// browser: Electron main passes `event.senderFrame.url`, `lathe serve` passes the Origin header.

interface IpcSender {
  /** URL of the frame that sent the request (`event.senderFrame.url`); undefined if the frame is gone. */
  frameUrl: string | undefined;
  /** Whether that frame is the window's top-level frame (`senderFrame === sender.mainFrame`). */
  isMainFrame: boolean;
  /** Where this app loads its renderer: the dev server URL or the built `index.html` file URL. */
  rendererUrl: string;
}

function parse(url: string | undefined): URL | undefined {
  if (!url) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * An IPC request is trusted only from our own renderer's top-level frame: the same built file
 * (`file:` URLs are compared by path, since every file shares one opaque origin) or the same dev
 * server origin. Anything else — a subframe, another file, a remote page the window was
 * navigated to — is refused.
 */
export function isTrustedSender(sender: IpcSender): boolean {
  if (!sender.isMainFrame) return false;
  const frame = parse(sender.frameUrl);
  const renderer = parse(sender.rendererUrl);
  if (!frame || !renderer) return false;
  if (renderer.protocol === "file:") {
    return frame.protocol === "file:" && frame.host === renderer.host && frame.pathname === renderer.pathname;
  }
  if (renderer.protocol === "http:" || renderer.protocol === "https:") {
    return frame.origin === renderer.origin;
  }
  return false;
}

/**
 * A browser request (the WebSocket upgrade of `lathe serve`) is allowed only when its Origin
 * header is exactly the server's own origin, e.g. `http://127.0.0.1:5123`. A missing header,
 * `null`, another port, another host name for the same address — all refused.
 */
export function isAllowedOrigin(origin: string | undefined, expectedOrigin: string): boolean {
  if (!origin || origin === "null") return false;
  const parsed = parse(origin);
  if (!parsed) return false;
  // The header must be a bare origin: no path, query, credentials or trailing text.
  return parsed.origin === origin && origin === expectedOrigin;
}
