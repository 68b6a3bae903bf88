import os from "node:os";
import { counted } from "../../engine/light.ts";
import type { Command } from "commander";
import type { DoctorReport } from "../../engine/index.ts";
import { rootOf, rootOption } from "../cli-options.ts";
import { ExitCode, type ExitStatus } from "../exit-codes.ts";
import { writeStdout } from "../output.ts";

/** `~/…` for a path under the home folder. */
function tilde(p: string): string {
  const home = os.homedir();
  return p === home || p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p;
}

/** What confined processes cannot read, as one line. */
function hiddenList(hidden: DoctorReport["walls"]["sandbox"]["hidden"]): string {
  const present = hidden.present.map(tilde);
  const absent =
    hidden.absent.length === 0 ? "" : ` (${hidden.absent.length} more listed, not on this machine)`;
  const listed = present.length === 0 ? "no listed path is on this machine" : present.join(", ");
  return `${listed}${absent} (sandbox.denyRead), and Lathe's own data in LATHE_HOME`;
}

/** What bash, plugin commands and MCP servers start without, as one line: names, never values. */
function withheldList(env: DoctorReport["walls"]["sandbox"]["env"]): string {
  const names = env.withheld.length === 0 ? "none of this environment's variables" : env.withheld.join(", ");
  return `${names} (sandbox.denyEnv: ${counted(env.denyEnv.length, "name or pattern", { plural: "names and patterns" })}, and Lathe's own keys); a command finds them empty`;
}

/** Which model a run here would use, or that none is chosen and how to choose one. */
function modelLines(model: DoctorReport["model"]): string[] {
  const lines = ["Model (what lathe run here uses without --model):"];
  if (model.chosen === null) {
    lines.push(`  NONE CHOSEN: lathe run without --model stops with "No model chosen"`);
  } else {
    lines.push(
      `  ${model.ready ? "ok     " : "PROBLEM"} ${model.chosen.spec} (${tilde(model.chosen.source)})`,
    );
    if (model.chosen.problem !== undefined) lines.push(`          ${model.chosen.problem}`);
  }
  if (model.fix !== undefined) lines.push(`          fix: ${model.fix}`);
  const files = model.gguf.files.map((f) => (f.problem ? `${tilde(f.id)} (${f.problem})` : tilde(f.id)));
  lines.push(
    `  GGUF files in ${tilde(model.gguf.folder)}: ${model.gguf.problem ?? (files.length === 0 ? "none" : files.join(", "))}`,
  );
  const stopped = model.servers.filter((server) => server.state === "stopped");
  for (const server of model.servers) {
    if (server.state === "stopped") continue;
    const models = server.models.length > 0 ? `: ${server.models.join(", ")}` : "";
    const said = server.state === "running" && server.models.length > 0 ? "" : (server.message ?? "");
    lines.push(
      `  ${server.provider} (${server.baseURL}) ${server.state}${models}${said ? ` — ${said}` : ""}`,
    );
  }
  if (stopped.length > 0) {
    lines.push(
      `  not running: ${stopped.map((server) => `${server.provider} (${server.baseURL})`).join(", ")}`,
    );
  }
  return lines;
}

/** The report as a person reads it: the two walls first, then the toolchain, then the model. */
function formatDoctorReport(report: DoctorReport): string {
  const { policy, sandbox } = report.walls;
  const lines: string[] = [];
  if (report.settings !== undefined) {
    lines.push(
      "Settings:",
      `  BROKEN  ${report.settings.problem}`,
      `          every lathe command in this folder stops on it; what follows assumes default settings`,
      `          fix: ${report.settings.fix}: ${report.settings.file}`,
    );
  }
  lines.push("Containment (two walls):", `  parser policy   active: ${policy.detail}`);
  if (sandbox.active) {
    lines.push(
      `  OS sandbox      active (${sandbox.mechanism}): bash, plugin commands and stdio MCP servers run confined`,
      `                  they cannot read: ${hiddenList(sandbox.hidden)}`,
      `                  network: ${sandbox.network.length === 0 ? "none" : sandbox.network.join(", ")} (sandbox.allowNetwork)`,
    );
  } else {
    lines.push(`  OS sandbox      NOT ACTIVE: ${sandbox.reason}`, `                  fix: ${sandbox.fix}`);
    if (!sandbox.enabledInSettings) {
      lines.push(
        sandbox.machine.active
          ? `                  (this machine can run it: ${sandbox.machine.mechanism})`
          : `                  (and this machine cannot run it: ${sandbox.machine.reason}; fix: ${sandbox.machine.fix})`,
      );
    }
    lines.push(
      "                  until it is, bash commands that are not provably read-only, plugin commands and stdio MCP servers need a person (headless: refused)",
    );
  }
  lines.push(`                  their environment lacks: ${withheldList(sandbox.env)}`);
  for (const warning of sandbox.warnings) lines.push(`                  warning: ${warning}`);
  lines.push("Toolchain:");
  for (const c of report.checks) {
    const mark = c.ok ? "ok     " : c.required ? "MISSING" : "absent ";
    lines.push(`  ${mark} ${c.name}: ${c.detail}`);
    if (!c.ok && c.fix) lines.push(`          fix: ${c.fix}`);
  }
  lines.push(...modelLines(report.model));
  const model = report.model.ready
    ? ""
    : report.model.chosen === null
      ? " No model is chosen yet (see Model above)."
      : " The model chosen cannot run as it is (see Model above).";
  lines.push(report.healthy ? `Healthy.${model}` : `Something Lathe needs is missing (see above).${model}`);
  return `${lines.join("\n")}\n`;
}

/** `lathe doctor [--root DIR] [--json]`: which walls are active, and the toolchain checks. */
export function registerDoctorCommand(program: Command, result: ExitStatus): void {
  program
    .command("doctor")
    .description(
      "Check which containment walls are active (parser policy, OS sandbox), the toolchain, and which model lathe run would use.",
    )
    .addOption(rootOption())
    .option(
      "--json",
      "print the report as JSON: {healthy, settings?, walls: {policy, sandbox}, checks, model}",
    )
    .action(async (options: { root?: string; json?: boolean }) => {
      const { doctor } = await import("../../engine/index.ts");
      const report = await doctor({ root: rootOf(options) });
      await writeStdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctorReport(report));
      result.exitCode = report.healthy ? ExitCode.ok : ExitCode.failure;
    });
}
