import { has, parseOptions, valuesOf } from "./command-options.ts";
import { baseName, dirOf, effects, joinPath, withUnknown, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";

/**
 * Links are a way out of the workspace for later writes: `ln -s ../outside l; echo x > l`. So a
 * link's target is treated as a write too, resolved the way the kernel will resolve it — a
 * relative symlink target from the folder the link is in, a hard link's target from the
 * working folder — and the capability check refuses any that lies outside.
 */

interface Link {
  /** The link being created. */
  name: ShellWord;
  /** The folder the link is created in, for a relative symbolic target. */
  folders: ShellWord[];
}

/** Where each target's link is created, for `ln [opts] TARGET… [LINK|DIR]` and `ln -t DIR TARGET…`. */
function linksOf(targets: ShellWord[], destination: ShellWord | undefined, intoFolder: boolean): Link[] {
  if (destination === undefined) {
    // One operand: a link of the same name in the working folder.
    return targets.map((t) => ({
      name: { ...t, text: baseName(t.text) },
      folders: [{ text: ".", literal: true }],
    }));
  }
  return targets.map((t) => {
    const inside = joinPath(destination, baseName(t.text));
    if (intoFolder) return { name: inside, folders: [destination] };
    // LINK may name an existing folder, in which case the link goes inside it.
    return { name: destination, folders: [dirOf(destination), destination] };
  });
}

const ln: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, {
    flags: "bdfFinLPrsTv",
    values: "St",
    long: {
      backup: "optional",
      directory: "flag",
      force: "flag",
      interactive: "flag",
      logical: "flag",
      "no-dereference": "flag",
      physical: "flag",
      relative: "flag",
      symbolic: "flag",
      suffix: "value",
      "target-directory": "value",
      "no-target-directory": "flag",
      verbose: "flag",
      help: "flag",
      version: "flag",
    },
    alias: { symbolic: "s", relative: "r", "target-directory": "t", suffix: "S" },
  });
  const folder = valuesOf(parsed, "t")[0];
  const operands = parsed.operands;
  const targets = folder !== undefined || operands.length < 2 ? operands : operands.slice(0, -1);
  const destination = folder ?? (operands.length >= 2 ? operands.at(-1) : undefined);
  const links = linksOf(targets, destination, folder !== undefined || operands.length > 2);
  const symbolic = has(parsed, "s");
  const writes: ShellWord[] = [];
  targets.forEach((target, i) => {
    const link = links[i] as Link;
    writes.push(link.name);
    // `-r` makes the stored target relative, but it points where the operand (from here) points.
    if (!symbolic || has(parsed, "r") || target.text.startsWith("/")) writes.push(target);
    else for (const base of link.folders) writes.push(joinPath(base, target.text));
  });
  return withUnknown(parsed, effects(writes));
};

/** `link TARGET NAME`: a hard link; both are written. */
const link: EffectsOf = (_program, args) =>
  effects(args.filter((a) => !(a.literal && a.text.startsWith("-"))));

export const LINK_EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ["ln", ln],
  ["link", link],
]);
