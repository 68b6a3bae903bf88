import type { TrustPrompt } from "../../shared/project-schemas.ts";
import { TrustStore, describeProjectGrants } from "../engine/index.ts";
import type { ApiHandlers } from "./api-router.ts";
import type { EngineHost } from "./engine-host.ts";

type ProjectChannels =
  | "project.status"
  | "project.review"
  | "project.trust"
  | "project.open"
  | "project.recent"
  | "project.trustPrompt";

/** The project's channels over the host's current engine: status, what trust would turn on, trust, open another folder, recent folders. */
export function createProjectHandlers(host: EngineHost): Pick<ApiHandlers, ProjectChannels> {
  return {
    "project.status": () => host.status(),
    "project.review": () => host.review(),
    "project.trust": () => host.trust(),
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
    "project.trustPrompt": async (): Promise<TrustPrompt> => {
      const { root, latheHome } = host.current;
      const grants = await describeProjectGrants(root, latheHome);
      return {
        ...grants,
        plugins: grants.plugins.map(({ requires, ...plugin }) => ({
          ...plugin,
          ...(requires
            ? {
                requires: {
                  read: requires.fs?.read ?? [],
                  write: requires.fs?.write ?? [],
                  hosts: requires.net?.hosts ?? [],
                  commands: (requires.shell ?? []).map((c) => c.cmd),
                  capabilities: requires.capabilities ?? [],
                },
              }
            : {}),
        })),
      };
    },
  };
}
