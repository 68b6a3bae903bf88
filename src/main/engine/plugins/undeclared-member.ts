/**
 * What to tell a plugin's author when its code used a `runtime` member its tool.yaml does not
 * grant. Such a member is absent (`runtime.shell` is undefined), so using it fails with V8's own
 * TypeError (`Cannot read properties of undefined (reading 'run')`), which names neither the
 * member nor the fix. The isolate notes which absent members a call read (see
 * isolate-bootstrap.ts); this turns a TypeError that follows into a message naming the field to
 * declare.
 */

import type { RuntimeShape } from "./isolate-bootstrap.ts";

interface Member {
  /** As the plugin writes it. */
  member: string;
  /** The tool.yaml field that grants it. */
  field: string;
  /** That field as YAML, for the example. */
  example: string;
  /** Words of a TypeError that come from using it (a method read off undefined, a call). */
  words: readonly string[];
  /** Whether a RuntimeShape has it. */
  granted(shape: RuntimeShape): boolean;
  /** How source code that uses it reads (`runtime.shell`, `runtime.fs.writeText`). */
  written: RegExp;
}

const FS_READ: Member = {
  granted: (shape) => shape.fsRead,
  written: /\bruntime\s*\.\s*fs\s*\.\s*(readText|list)\b/,
  member: "runtime.fs.readText and runtime.fs.list",
  field: "requires.fs.read",
  example: 'requires: {fs: {read: ["{workspace}/**"]}}',
  words: ["readText", "list"],
};
const FS_WRITE: Member = {
  granted: (shape) => shape.fsWrite,
  written: /\bruntime\s*\.\s*fs\s*\.\s*writeText\b/,
  member: "runtime.fs.writeText",
  field: "requires.fs.write",
  example: 'requires: {fs: {write: ["{workspace}/out/**"]}}',
  words: ["writeText"],
};

/** Each name the isolate reports, and what it stands for. */
const MEMBERS: Record<string, readonly Member[]> = {
  shell: [
    {
      granted: (shape) => shape.shell,
      written: /\bruntime\s*\.\s*shell\b/,
      member: "runtime.shell",
      field: "requires.shell",
      example: "requires: {shell: [{cmd: <program>, args: [...]}]}",
      words: ["shell", "run"],
    },
  ],
  net: [
    {
      granted: (shape) => shape.net,
      written: /\bruntime\s*\.\s*net\b/,
      member: "runtime.net",
      field: "requires.net.hosts",
      example: 'requires: {net: {hosts: ["api.example.com"]}}',
      words: ["net", "fetch"],
    },
  ],
  fs: [FS_READ, FS_WRITE],
  "fs.readText": [FS_READ],
  "fs.list": [FS_READ],
  "fs.writeText": [FS_WRITE],
};

function mentions(message: string, word: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9_$])${word}($|[^A-Za-z0-9_$])`).test(message);
}

/**
 * The message for a TypeError `message` thrown by plugin `toolId` in a call that read the absent
 * members `absent` (as the isolate names them: "shell", "fs", "fs.writeText", …), or undefined
 * when the error does not come from one of them. `at` is where it was thrown (` (thrown at …)`).
 */
export function undeclaredMemberMessage(
  toolId: string,
  message: string,
  absent: readonly string[],
  at: string,
): string | undefined {
  for (const name of absent) {
    const candidates = MEMBERS[name] ?? [];
    // `runtime.fs` absent: the method in the message says whether reading or writing was meant.
    const used =
      candidates.find((m) => m.words.some((w) => mentions(message, w))) ??
      (mentions(message, name.split(".").at(-1) as string) ? candidates[0] : undefined);
    if (used === undefined) continue;
    return `${toolId} used ${used.member}, which its tool.yaml does not declare (${used.field}), so it is not available to it: ${message}${at}. This is a bug in the plugin, not in the call: its author must declare ${used.field} in tool.yaml (${used.example}; see docs/plugins.md, requires) or stop using ${used.member}.`;
  }
  return undefined;
}

/** A runtime member a line of source code uses that `shape` does not grant, for `lathe plugin check`. */
export interface UndeclaredUse {
  member: string;
  field: string;
  example: string;
}

/** The members `line` uses by name (`runtime.shell.run(…)`) that `shape` does not grant. */
export function undeclaredUses(line: string, shape: RuntimeShape): UndeclaredUse[] {
  const members = [...new Set(Object.values(MEMBERS).flat())];
  return members
    .filter((m) => !m.granted(shape) && m.written.test(line))
    .map(({ member, field, example }) => ({ member, field, example }));
}
