import type { ApiHandlers } from "./api-router.ts";
import type { EngineHost } from "./engine-host.ts";

/** `project.status`, `project.review` and `project.trust` over the host's current engine. */
export function createProjectHandlers(
  host: EngineHost,
): Pick<ApiHandlers, "project.status" | "project.review" | "project.trust"> {
  return {
    "project.status": () => host.status(),
    "project.review": () => host.review(),
    "project.trust": () => host.trust(),
  };
}
