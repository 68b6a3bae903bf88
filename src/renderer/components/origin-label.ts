import type { ToolOrigin } from "../../shared/api-contract.ts";

/** Where a tool comes from, e.g. "builtin · builtin" or "project · plugin · my-tool". */
export function originLabel(origin: ToolOrigin): string {
  return [origin.layer, origin.kind, origin.name]
    .filter((part) => part !== undefined && part !== "")
    .join(" · ");
}
