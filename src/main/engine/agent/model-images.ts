import picomatch from "picomatch";

/**
 * Whether a model takes images, from its endpoint's `images` setting: true or false for all its
 * models, or globs of the model names that do ("llava*"). Without a setting, the provider's default.
 */
export function acceptsImages(
  setting: boolean | readonly string[] | undefined,
  model: string,
  fallback: boolean,
): boolean {
  if (setting === undefined) return fallback;
  if (typeof setting === "boolean") return setting;
  // `bash`: a single star also spans "/" (LM Studio names models "publisher/model").
  return setting.some((glob) => picomatch.isMatch(model, glob, { nocase: true, dot: true, bash: true }));
}
