import type { ShellAnalysis } from "./shell-analysis.ts";

/**
 * Programs that only print what they are given or what they read, whatever literal arguments
 * they get: none of them writes a file, starts another program or opens the network.
 */
const PLAIN_READERS = new Set(["ls", "cat", "head", "tail", "wc", "pwd", "echo", "grep"]);

/**
 * Undefined when the command provably changes nothing (it may run without the OS sandbox),
 * otherwise why that cannot be shown. Deliberately narrow: only plain readers, with literal
 * words, no wrappers, no redirections and nothing the parser could not see through.
 */
export function provablyReadOnly(analysis: ShellAnalysis): string | undefined {
  if (analysis.opaque.length > 0) return `parts of it cannot be seen through (${analysis.opaque[0]})`;
  if (analysis.commands.length === 0) return "it runs no command Lathe recognises";
  const redirection = analysis.redirections[0];
  if (redirection) return `it redirects to or from a file ("${redirection.source}")`;
  for (const command of analysis.commands) {
    if (command.via.length > 0) return `"${command.source}" runs through ${command.via.join(", ")}`;
    if (!PLAIN_READERS.has(command.name)) return `"${command.name}" is not a plain reader`;
    const dynamic = command.args.find((word) => !word.literal);
    if (dynamic) return `"${dynamic.text}" in "${command.source}" is only known when the shell runs`;
  }
  return undefined;
}
