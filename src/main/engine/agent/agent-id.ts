/** What an agent's id may be: it is a manifest's file name (without .md) or its `id:`. */
export const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `id` cannot name an agent, or undefined when it can. */
export function agentIdProblem(id: string): string | undefined {
  return AGENT_ID.test(id)
    ? undefined
    : `Agent id "${id}" is invalid: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`;
}
