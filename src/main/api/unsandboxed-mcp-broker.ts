import { randomUUID } from "node:crypto";
import type { UnsandboxedMcpPrompt, PushFrame } from "../../shared/push-events.ts";
import type { UnsandboxedServerRequest } from "../engine/index.ts";
import { PromptQueue } from "./prompt-queue.ts";
import type { UnsandboxedMcpAsker } from "./unsandboxed-mcp-gate.ts";

/**
 * One UI's dialog before a stdio MCP server starts without the OS sandbox: each question goes to
 * the UI as an `mcp.unsandboxedRequested` push and waits for the person, one at a time (the same
 * prompt queue approvals use). It never invents a yes: a closed UI or a push that cannot be sent
 * is a no.
 */
export class UnsandboxedMcpBroker implements UnsandboxedMcpAsker {
  private readonly prompts: PromptQueue<UnsandboxedMcpPrompt, boolean>;

  constructor(send: (frame: PushFrame) => void) {
    this.prompts = new PromptQueue({
      fallback: false,
      noun: "MCP server prompt",
      describe: (prompt) => `the prompt to start MCP server ${prompt.server} without the sandbox`,
      show: (prompt) => send({ event: "mcp.unsandboxedRequested", payload: prompt }),
      settled: (prompt, approved, cause) =>
        send({ event: "mcp.unsandboxedSettled", payload: { id: prompt.id, approved, cause } }),
    });
  }

  askUnsandboxedMcp(request: UnsandboxedServerRequest): Promise<boolean> {
    return this.prompts.ask({
      id: `mcp-unsandboxed-${randomUUID()}`,
      server: request.server,
      layer: request.layer,
      commandLine: request.commandLine,
      reason: request.reason,
    });
  }

  get pendingCount(): number {
    return this.prompts.pendingCount;
  }

  /** The person's answer to the dialog on screen. */
  respond(id: string, approve: boolean): { id: string; approved: boolean } {
    this.prompts.answer(id, approve);
    return { id, approved: approve };
  }

  close(): void {
    this.prompts.close();
  }
}
