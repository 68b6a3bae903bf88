import type { ApiHandlers } from "./api-router.ts";
import type { EngineHost } from "./engine-host.ts";

/** `project.status` and `project.trust` over the host's current engine. */
export function createProjectHandlers(
  host: EngineHost,
): Pick<ApiHandlers, "project.status" | "project.trust"> {
  return {
    "project.status": () => host.status(),
    "project.trust": () => host.trust(),
  };
}
