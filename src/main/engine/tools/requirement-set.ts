import { z } from "../config/zod-mini.ts";

/** One positional argument pattern of a shell requirement: exact, any one argument, or a prefix. */
const ArgPatternSchema = z.union([
  z.string(),
  z.strictObject({ wildcard: z.literal(true) }),
  z.strictObject({ prefix: z.string() }),
]);
export type ArgPattern = z.infer<typeof ArgPatternSchema>;

export const ShellRunRequirementSchema = z.strictObject({
  cmd: z.string().check(z.minLength(1)),
  args: z.optional(z.array(ArgPatternSchema)),
});
export type ShellRunRequirement = z.infer<typeof ShellRunRequirementSchema>;

const Names = z.array(z.string().check(z.minLength(1)));

/**
 * The runtime surface a tool (or an agent manifest) needs. Path patterns may start with a
 * variable (`{workspace}`, `{ad-hoc}`, `{user-data}`, `{session}`); relative patterns are relative
 * to the workspace root.
 */
export const RequirementSetSchema = z.strictObject({
  fs: z.optional(z.strictObject({ read: z.optional(Names), write: z.optional(Names) })),
  net: z.optional(z.strictObject({ hosts: z.optional(Names) })),
  shell: z.optional(z.array(ShellRunRequirementSchema)),
  capabilities: z.optional(Names),
});
export type RequirementSet = z.infer<typeof RequirementSetSchema>;

function mergeList<T>(into: T[], from: readonly T[] | undefined, key: (item: T) => string): void {
  if (!from) return;
  const seen = new Set(into.map(key));
  for (const item of from) {
    const k = key(item);
    if (!seen.has(k)) {
      seen.add(k);
      into.push(item);
    }
  }
}

/**
 * The effective capability set of an agent: the union of its manifest's `requires` and every
 * tool's `requires`. Adding a tool extends the set without touching the manifest.
 */
export function unionRequirements(sets: readonly RequirementSet[]): RequirementSet {
  const read: string[] = [];
  const write: string[] = [];
  const hosts: string[] = [];
  const shell: ShellRunRequirement[] = [];
  const capabilities: string[] = [];
  for (const set of sets) {
    mergeList(read, set.fs?.read, (s) => s);
    mergeList(write, set.fs?.write, (s) => s);
    mergeList(hosts, set.net?.hosts, (s) => s);
    mergeList(shell, set.shell, (s) => JSON.stringify(s));
    mergeList(capabilities, set.capabilities, (s) => s);
  }
  const out: RequirementSet = {};
  if (read.length || write.length) {
    out.fs = {};
    if (read.length) out.fs.read = read;
    if (write.length) out.fs.write = write;
  }
  if (hosts.length) out.net = { hosts };
  if (shell.length) out.shell = shell;
  if (capabilities.length) out.capabilities = capabilities;
  return out;
}
