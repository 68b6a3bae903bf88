import type { SandboxReport } from "../../shared/sandbox-schemas.ts";
import { doctor, type Engine, type SandboxStatus } from "../engine/index.ts";
import type { ApiHandlers } from "./api-router.ts";

function status(s: SandboxStatus): SandboxReport["engine"] {
  return {
    active: s.active,
    ...(s.mechanism !== undefined ? { mechanism: s.mechanism } : {}),
    ...(s.reason !== undefined ? { reason: s.reason } : {}),
    ...(s.fix !== undefined ? { fix: s.fix } : {}),
    warnings: [...s.warnings],
  };
}

/** `sandbox.report`: `lathe doctor`'s check for the engine's folder, and what its engine uses now. */
export function createSandboxHandlers(engine: () => Promise<Engine>): Pick<ApiHandlers, "sandbox.report"> {
  return {
    "sandbox.report": async (): Promise<SandboxReport> => {
      const current = await engine();
      const report = await doctor({ root: current.root, latheHome: current.latheHome });
      const { sandbox } = report.walls;
      return {
        healthy: report.healthy,
        walls: {
          policy: report.walls.policy,
          sandbox: {
            ...status(sandbox),
            enabledInSettings: sandbox.enabledInSettings,
            machine: status(sandbox.machine),
            hidden: { present: [...sandbox.hidden.present], absent: [...sandbox.hidden.absent] },
            network: [...sandbox.network],
            env: { withheld: [...sandbox.env.withheld], denyEnv: [...sandbox.env.denyEnv] },
          },
        },
        checks: report.checks.map((c) => ({
          name: c.name,
          ok: c.ok,
          required: c.required,
          detail: c.detail,
          ...(c.fix !== undefined ? { fix: c.fix } : {}),
        })),
        engine: status(current.sandboxStatus),
      };
    },
  };
}
