import { describe, expect, it } from "vitest";
import { savedImageLabel, savedImagesOf } from "./tool-images.ts";

describe("saved images on a tool card", () => {
  it("lists the images an output names, and nothing for errors or other data", () => {
    const image = { mimeType: "image/png", path: "/home/me/.lathe/sessions/s/sidecars/x.png", bytes: 4033 };
    const output = (data: unknown) => ({ type: "output" as const, data, metadata: { duration_ms: 1 } });
    expect(savedImagesOf(output({ content: "…", images: [image, { path: 3 }] }))).toEqual([image]);
    expect(savedImagesOf(output({ content: "no images" }))).toEqual([]);
    expect(savedImagesOf(output("text"))).toEqual([]);
    expect(savedImagesOf({ type: "error", error_text: "x", metadata: { duration_ms: 1 } })).toEqual([]);
    expect(savedImagesOf(undefined)).toEqual([]);
  });

  it("says a one-byte image is 1 byte, not 1 bytes", () => {
    const image = { mimeType: "image/gif", path: "/x.gif", bytes: 1 };
    expect(savedImageLabel(image)).toBe("Image (image/gif, 1 byte)");
    expect(savedImageLabel({ ...image, bytes: 4033 })).toBe("Image (image/gif, 4033 bytes)");
  });
});
