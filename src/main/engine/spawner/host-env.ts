/**
 * This process's environment as a spawner request carries it (every variable that has a
 * value): what a program this process started itself would have inherited. For the user's own
 * programs (hooks, the login shell, `lathe doctor`'s probes); commands run for a model or a
 * plugin get environments of their own (pty-runner.ts, bridge-shell.ts). `from` is another
 * environment to carry the same way (`lathe doctor`'s, given by its caller).
 */
export function hostEnv(from: Readonly<NodeJS.ProcessEnv> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(from)) if (value !== undefined) env[key] = value;
  return env;
}
