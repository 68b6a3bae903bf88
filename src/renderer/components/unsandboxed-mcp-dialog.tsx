import { useAppState } from "../state/store-context.tsx";
import { Modal } from "./modal.tsx";
import { ErrorLine } from "./error-line.tsx";

/**
 * Before a stdio MCP server starts without the OS sandbox: the exact command, why there is no
 * sandbox, and a yes or no. A no (or Esc) leaves it stopped; its Restart asks again.
 */
export function UnsandboxedMcpDialog() {
  const prompt = useAppState((s) => s.mcpPrompts[0]);
  const error = useAppState((s) => s.mcpPromptError);
  const answer = useAppState((s) => s.answerMcpPrompt);
  return (
    <Modal open={prompt !== undefined} onClose={() => void answer(false)} labelledBy="mcp-unsandboxed-title">
      {prompt ? (
        <div className="approval-body">
          <h2 id="mcp-unsandboxed-title">Start {prompt.server} without the sandbox?</h2>
          <p>
            {prompt.layer === "project" ? "This folder's" : "Your"} MCP server{" "}
            <strong>{prompt.server}</strong> would run unconfined: it could read and write anything you can,
            and reach the network. The OS sandbox is not active: {prompt.reason}.
          </p>
          <pre className="command-line trust-command" aria-label="Command line">
            {prompt.commandLine}
          </pre>
          <p className="muted">
            Your yes holds for this command line until Lathe closes. Settings → Sandbox says how to turn the
            sandbox on.
          </p>
          <ErrorLine message={error} />
          <div className="approval-actions">
            <button type="button" className="button-reject" data-autofocus onClick={() => void answer(false)}>
              Leave it stopped
            </button>
            <button type="button" className="run" onClick={() => void answer(true)}>
              Start it unconfined
            </button>
          </div>
        </div>
      ) : null}
    </Modal>
  );
}
