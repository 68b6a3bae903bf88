import { escapeBidiControls } from "../../shared/bidi-controls.ts";

/** The command of a call whose arguments carry one (bash, and tools shaped like it). */
function commandOf(args: unknown): { command: string; rest: Record<string, unknown> } | undefined {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  const { command, ...rest } = args as Record<string, unknown>;
  return typeof command === "string" ? { command, rest } : undefined;
}

/**
 * A call's full arguments as the person must see them before saying yes: a command in its own
 * monospace block, everything else as pretty JSON. Nothing is shortened; long text wraps and
 * the block scrolls. Characters that reorder the text around them are shown as their escapes
 * (`\u202e`), so what the person reads is the order the characters really have.
 */
export function ApprovalArguments({ args }: { args: unknown }) {
  const shell = commandOf(args);
  if (shell) {
    return (
      <>
        <h3 id="approval-command-label">Command</h3>
        <pre className="approval-command" aria-labelledby="approval-command-label" tabIndex={0}>
          {escapeBidiControls(shell.command)}
        </pre>
        {Object.keys(shell.rest).length > 0 ? (
          <>
            <h3 id="approval-other-label">Other arguments</h3>
            <pre className="approval-args" aria-labelledby="approval-other-label" tabIndex={0}>
              {escapeBidiControls(JSON.stringify(shell.rest, null, 2))}
            </pre>
          </>
        ) : null}
      </>
    );
  }
  return (
    <>
      <h3 id="approval-args-label">Arguments</h3>
      <pre className="approval-args" aria-labelledby="approval-args-label" tabIndex={0}>
        {escapeBidiControls(JSON.stringify(args, null, 2) ?? "(none)")}
      </pre>
    </>
  );
}
