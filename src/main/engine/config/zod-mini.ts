// zod's lighter build, for the schemas a start parses (the plugin manifest and sandbox caches,
// plugins' `requires`): its schemas take a fraction of the time to build, and they check exactly
// as the classic ones do. Classic zod sets English messages when it builds its first schema, and
// zod/mini sets none: set them here too, so a message reads the same whichever is built first.
import { z } from "zod/mini";
import en from "zod/v4/locales/en.js";

if (!z.config().localeError) z.config(en());

export { z };
