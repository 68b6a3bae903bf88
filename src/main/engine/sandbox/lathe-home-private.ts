import path from "node:path";

/**
 * What a confined process may not read of `$LATHE_HOME`: the database (every session's
 * conversation and tool calls, of every folder, and the audit trail), the user's settings (an
 * MCP server's `headers` can hold a bearer token), trust, the checkpoints' copies of other
 * folders' files, the sessions' sidecar files and the logs. A command run for a model in one
 * folder would otherwise read what the person did in every other. The rest — models, tools,
 * agents, skills, the cache — stays readable: a plugin's command or an MCP server may run
 * from there.
 */
export function latheHomePrivate(latheHome: string): string[] {
  return [
    "lathe.db",
    "lathe.db-wal",
    "lathe.db-shm",
    "lathe.db-journal",
    "settings.json",
    "trust.json",
    "checkpoints",
    "sessions",
    "logs",
  ].map((name) => path.join(latheHome, name));
}
