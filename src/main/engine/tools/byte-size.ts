import { counted } from "./counted.ts";

/** A byte count as a model or a person reads it: "12 bytes", "48.2 KB", "430.1 MB". */
export function byteSize(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return counted(n, "byte");
}
