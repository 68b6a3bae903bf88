// The jobs an offload worker runs (see offload.ts), by name. Each is a plain function of one
// structured-cloneable input; the main thread imports this file only for its types.
import { listJson, textJson, writePayload } from "../plugins/bridge-text.ts";

export const JOBS = {
  /** JSON text of any size, parsed; the value comes back as a structured clone. */
  "json.parse": (input: { json: string }): unknown => JSON.parse(input.json),
  "plugin.textJson": textJson,
  "plugin.writePayload": writePayload,
  "plugin.listJson": listJson,
};
