import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";

/**
 * An image a tool produced (an MCP tool's image content), saved in the session's sidecar folder
 * and named in the output data as `images`. Hosts show where it is; a model that takes images
 * gets the image itself beside the envelope, other models read the placeholder in the text.
 */
export interface ToolImage {
  mimeType: string;
  /** Absolute path of the saved file. */
  path: string;
  bytes: number;
}

/** Larger images stay files only (5 MB is where cloud APIs draw the line). */
const MAX_MODEL_IMAGE_BYTES = 5 * 1024 * 1024;

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
  "image/bmp": "bmp",
};

/** The file extension for an image's media type ("bin" for one Lathe does not know). */
export function imageExtension(mimeType: string): string {
  return EXTENSIONS[mimeType.toLowerCase()] ?? "bin";
}

function isToolImage(value: unknown): value is ToolImage {
  const v = value as Partial<ToolImage> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.mimeType === "string" &&
    typeof v.path === "string" &&
    typeof v.bytes === "number"
  );
}

/** The images an output's data names (`data.images`), if any. */
export function imagesOf(data: unknown): ToolImage[] {
  const images = (data as { images?: unknown } | null)?.images;
  return Array.isArray(images) ? images.filter(isToolImage) : [];
}

/**
 * The bytes of an image to show the model: only a raster image inside the session's sidecar
 * folder (where Lathe saved it; a path in tool output cannot make Lathe read another file) and
 * no larger than MAX_MODEL_IMAGE_BYTES. Undefined when it does not qualify or is gone.
 */
export function readModelImage(image: ToolImage, sidecarDir: string): Buffer | undefined {
  if (!/^image\/(png|jpeg|gif|webp)$/i.test(image.mimeType)) return undefined;
  try {
    const file = realpathSync(image.path);
    const dir = realpathSync(sidecarDir);
    if (path.dirname(file) !== dir) return undefined;
    const bytes = readFileSync(file);
    return bytes.length <= MAX_MODEL_IMAGE_BYTES ? bytes : undefined;
  } catch {
    return undefined;
  }
}
