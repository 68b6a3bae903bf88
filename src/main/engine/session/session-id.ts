/** What a persistent session's id may be: it names a folder in $LATHE_HOME/sessions. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `id` cannot name a session, or undefined when it can. */
export function sessionIdProblem(id: string): string | undefined {
  return SESSION_ID.test(id)
    ? undefined
    : `Session id "${id}" is invalid: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`;
}
