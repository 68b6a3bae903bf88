import { randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh random access token: 32 bytes as 64 hex characters. */
export function newAccessToken(): string {
  return randomBytes(32).toString("hex");
}

/** Compare a presented token with the real one in constant time; anything not a string fails. */
export function tokenMatches(presented: unknown, token: string): boolean {
  if (typeof presented !== "string") return false;
  const a = Buffer.from(presented, "utf8");
  const b = Buffer.from(token, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie from a `Cookie` request header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
