import { counted } from "../../shared/counted.ts";
import type { Envelope } from "../../shared/envelope-schema.ts";

/** An image a tool produced and Lathe saved (an MCP tool's image): where it is and what it is. */
export interface SavedImage {
  mimeType: string;
  path: string;
  bytes: number;
}

/** The images an output names in `data.images` (see the engine's tools/tool-image.ts). */
export function savedImagesOf(envelope: Envelope | undefined): SavedImage[] {
  if (envelope?.type !== "output") return [];
  const images = (envelope.data as { images?: unknown } | null)?.images;
  if (!Array.isArray(images)) return [];
  return images.filter(
    (i): i is SavedImage =>
      typeof i === "object" &&
      i !== null &&
      typeof (i as SavedImage).path === "string" &&
      typeof (i as SavedImage).mimeType === "string" &&
      typeof (i as SavedImage).bytes === "number",
  );
}

/** What a card says of a saved image before its path: "Image (image/png, 1 byte)". */
export function savedImageLabel(image: SavedImage): string {
  return `Image (${image.mimeType}, ${counted(image.bytes, "byte")})`;
}
