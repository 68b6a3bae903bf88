import { describe, expect, it } from "vitest";
import { savedImagesOf } from "./tool-images.ts";

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
});
