// Which containment walls stand, as `lathe doctor` reports them: the parser policy, and the OS
// sandbox (active, or why not and the fix), with the toolchain checks behind them.
import { z } from "zod";

const SandboxStatusSchema = z.strictObject({
  active: z.boolean(),
  mechanism: z.string().optional(),
  reason: z.string().optional(),
  fix: z.string().optional(),
  warnings: z.array(z.string()),
});

export const SandboxReportSchema = z.strictObject({
  healthy: z.boolean(),
  walls: z.strictObject({
    policy: z.strictObject({ active: z.literal(true), detail: z.string() }),
    sandbox: SandboxStatusSchema.extend({
      enabledInSettings: z.boolean(),
      machine: SandboxStatusSchema,
      /** `sandbox.denyRead`: on this machine now (hidden), and listed but not here. */
      hidden: z.strictObject({ present: z.array(z.string()), absent: z.array(z.string()) }),
      /** `sandbox.allowNetwork`: the hosts confined processes may reach (none: no network). */
      network: z.array(z.string()),
      /**
       * Variables bash, plugin commands and stdio MCP servers start without: the names set now
       * (never values) that `sandbox.denyEnv` or Lathe's own keys withhold, and the list in force.
       */
      env: z.strictObject({ withheld: z.array(z.string()), denyEnv: z.array(z.string()) }),
    }),
  }),
  checks: z.array(
    z.strictObject({
      name: z.string(),
      ok: z.boolean(),
      required: z.boolean(),
      detail: z.string(),
      fix: z.string().optional(),
    }),
  ),
  /** What the folder's engine uses now (it was checked when the engine started). */
  engine: SandboxStatusSchema,
});

export type SandboxReport = z.output<typeof SandboxReportSchema>;
