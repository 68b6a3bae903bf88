/** The link targets a model's text may open: the web and mail, nothing local or scriptable. */
const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/** The URL when it is absolute and http, https or mailto; undefined for anything else. */
export function safeHref(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  return SAFE_SCHEMES.has(parsed.protocol) ? parsed.href : undefined;
}
