import { effects, unclear, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Signals and other actions on processes. A command may signal what it started itself (`$!`,
 * a job `%1`, its own group `0`); any other process id, a name pattern (`pkill`, `killall`) or
 * everything (`kill -9 -1`) reaches processes outside the call.
 */

/** Targets that can only be processes this command started. */
function ownTarget(target: ShellWord): boolean {
  if (target.literal) return /^%([0-9]+|[%+-])?$/.test(target.text) || target.text === "0";
  return /^"?\$(!|\{!\}|\$|\{\$\}|BASHPID|\{BASHPID\})"?$/.test(target.text);
}

const kill: EffectsOf = (program, args) => {
  const targets: ShellWord[] = [];
  let options = true;
  let signal = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (options && a.literal) {
      if (a.text === "--") {
        options = false;
        continue;
      }
      if (/^(-l|-L|--list|--table)$/.test(a.text)) return effects();
      if (/^(-s|-n|--signal|-q|--queue)$/.test(a.text)) {
        signal = true;
        i++;
        continue;
      }
      // The first `-X` is the signal; later ones (`kill -9 -1`) are process groups.
      if (!signal && /^-([A-Za-z][A-Za-z0-9+-]*|\d+)$/.test(a.text)) {
        signal = true;
        continue;
      }
    }
    options = false;
    targets.push(a);
  }
  const foreign = targets.find((t) => !ownTarget(t));
  return foreign === undefined
    ? effects()
    : unclear(
        `"${program}" sends a signal to ${shown(foreign.text)}, which may be a process this command did not start`,
      );
};

const byName =
  (what: string): EffectsOf =>
  (program, args) =>
    args.length === 0 || args.every((a) => a.literal && /^(-[lhV]|--help|--version|--list|-L)$/.test(a.text))
      ? effects()
      : unclear(`"${program}" ${what}, reaching processes this command did not start`);

export const PROCESS_EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ["kill", kill],
  ["pkill", byName("signals every process whose name or command line matches")],
  ["killall", byName("signals every process with a given name")],
  ["killall5", byName("signals every process")],
  ["skill", byName("signals processes by user, terminal or name")],
  ["snice", byName("changes the priority of processes by user, terminal or name")],
  ["renice", byName("changes the priority of processes it names")],
  [
    "fuser",
    (p, args) =>
      args.some((a) => /^-[A-Za-z]*k/.test(a.text))
        ? unclear(`"${p} -k" kills every process using a file`)
        : effects(),
  ],
  ["xkill", byName("kills the client of a window")],
  ["pgrep", () => effects()],
]);
