import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { RunEventSchema } from "../../../shared/run-event-schema.ts";
import { ExitCode } from "../exit-codes.ts";
import { registerRunCommand } from "./run-command.ts";

function runHelp(): string {
  const program = new Command("lathe");
  registerRunCommand(program, { exitCode: ExitCode.ok }, ["run", "--help"]);
  const run = program.commands.find((c) => c.name() === "run");
  if (!run) throw new Error("run was not registered");
  let text = "";
  run.configureOutput({ writeOut: (s) => (text += s) });
  run.outputHelp();
  return text;
}

describe("lathe run --help", () => {
  // A script reading `--json` output learns the event names from the help: each event the
  // contract has must be named there (tool-phase and compaction were once missing).
  const types = RunEventSchema.options.map((o) => o.shape.type.value);
  it.each(types)("names the %s event among the --json events", (type) => {
    const help = runHelp();
    const events = help.slice(help.indexOf("JSON events (--json)"));
    expect(events).toMatch(new RegExp(`(^|[\\s,(])${type}([\\s,:({]|$)`));
  });
});
