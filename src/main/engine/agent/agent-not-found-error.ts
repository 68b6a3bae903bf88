import { LatheError } from "../errors/lathe-error.ts";

/** No agent has the requested id; the message lists the ones there are and where they live. */
export class AgentNotFoundError extends LatheError {
  constructor(message: string) {
    super("agent_not_found", message);
  }
}
