import { TrustStore } from "../engine/index.ts";
import type { ApiHandlers } from "./api-router.ts";
import type { EngineHost } from "./engine-host.ts";
import { refusing } from "./refusing.ts";

type ProjectChannels =
  "project.status" | "project.review" | "project.trust" | "project.open" | "project.recent";

/** The project's channels over the host's current engine: status, what trust would turn on, trust, open another folder, recent folders. */
export function createProjectHandlers(host: EngineHost): Pick<ApiHandlers, ProjectChannels> {
  return {
    "project.status": () => host.status(),
    "project.review": () => refusing(() => host.review()),
    "project.trust": (request) => refusing(() => host.trust(request?.grants)),
    "project.open": ({ path }) => host.open(path),
    "project.recent": () => {
      const trust = new TrustStore(host.current.latheHome);
      return {
        projects: host.recent.listWithPresence().map((entry) => ({
          ...entry,
          trusted: trust.isTrusted(entry.root),
        })),
      };
    },
  };
}
