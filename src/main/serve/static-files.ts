import { realpath, stat } from "node:fs/promises";
import path from "node:path";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".wasm": "application/wasm",
  ".txt": "text/plain; charset=utf-8",
};

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

type StaticLookup = { status: 200; file: string } | { status: 400 | 404 };

/**
 * Map a request's URL path onto a file inside `rootReal` (an already-canonical folder), or say
 * why not. `/` is `index.html`. Percent-encoded `..`, backslashes, NUL bytes, and symlinks that
 * lead out of the folder never resolve to a file outside it.
 */
export async function lookupStaticFile(rootReal: string, urlPath: string): Promise<StaticLookup> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { status: 400 };
  }
  if (!decoded.startsWith("/") || decoded.includes("\0") || decoded.includes("\\")) return { status: 400 };
  const relative = decoded === "/" ? "index.html" : decoded.slice(1);
  const candidate = path.resolve(rootReal, relative);
  if (!isInside(rootReal, candidate)) return { status: 404 };
  let real: string;
  try {
    real = await realpath(candidate);
    if (!isInside(rootReal, real) || !(await stat(real)).isFile()) return { status: 404 };
  } catch {
    return { status: 404 };
  }
  return { status: 200, file: real };
}

function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}
