import type { ApiResult, Channel, LatheApi, RequestOf, ResponseOf } from "./api-contract.ts";
import type { PushEvent, PushOf } from "./push-events.ts";

/** A transport: send one request on a channel and resolve to the wrapped answer (never reject). */
export type Invoke = <C extends Channel>(
  channel: C,
  request: RequestOf<C>,
) => Promise<ApiResult<ResponseOf<C>>>;

/** A transport's pushes: listen to one event (payloads already validated); returns the unsubscribe. */
export type Subscribe = <E extends PushEvent>(event: E, listener: (payload: PushOf<E>) => void) => () => void;

/** Build the `LatheApi` over a transport: IPC in the preload, a WebSocket in a plain browser. */
export function createLatheApi(invoke: Invoke, subscribe: Subscribe): LatheApi {
  return {
    tools: {
      list: () => invoke("tools.list", undefined),
      call: (request) => invoke("tools.call", request),
    },
    approvals: {
      respond: (request) => invoke("approval.respond", request),
    },
    project: {
      status: () => invoke("project.status", undefined),
      review: () => invoke("project.review", undefined),
      trust: () => invoke("project.trust", undefined),
    },
    extensions: {
      status: () => invoke("extensions.status", undefined),
    },
    plugins: {
      setEnabled: (request) => invoke("plugins.setEnabled", request),
      approve: (request) => invoke("plugins.approve", request),
      log: (request) => invoke("plugins.log", request),
    },
    mcp: {
      preview: (request) => invoke("mcp.preview", request),
      save: (request) => invoke("mcp.save", request),
      remove: (request) => invoke("mcp.remove", request),
      setEnabled: (request) => invoke("mcp.setEnabled", request),
      restart: (request) => invoke("mcp.restart", request),
      log: (request) => invoke("mcp.log", request),
      approveUnsandboxed: (request) => invoke("mcp.approveUnsandboxed", request),
    },
    chat: {
      send: (request) => invoke("chat.send", request),
      abort: (request) => invoke("chat.abort", request),
      history: (request) => invoke("chat.history", request),
      stopTool: (request) => invoke("chat.stopTool", request),
    },
    models: {
      list: () => invoke("models.list", undefined),
      catalog: () => invoke("models.catalog", undefined),
      setProjectModel: (request) => invoke("models.setProjectModel", request),
      addGguf: (request) => invoke("models.addGguf", request),
    },
    audit: {
      query: (request) => invoke("audit.query", request),
    },
    permissions: {
      get: () => invoke("permissions.get", undefined),
      saveRules: (request) => invoke("permissions.saveRules", request),
      setApprovals: (request) => invoke("permissions.setApprovals", request),
      revoke: (request) => invoke("permissions.revoke", request),
      check: (request) => invoke("permissions.check", request),
    },
    sandbox: {
      report: () => invoke("sandbox.report", undefined),
    },
    sessions: {
      list: (request) => invoke("sessions.list", request),
      rename: (request) => invoke("sessions.rename", request),
      delete: (request) => invoke("sessions.delete", request),
    },
    projects: {
      open: (request) => invoke("project.open", request),
      recent: () => invoke("project.recent", undefined),
    },
    agents: {
      list: () => invoke("agents.list", undefined),
    },
    questions: {
      respond: (request) => invoke("question.respond", request),
    },
    secrets: {
      status: () => invoke("secrets.status", undefined),
      set: (request) => invoke("secrets.set", request),
      remove: (request) => invoke("secrets.remove", request),
    },
    checkpoints: {
      list: (request) => invoke("checkpoints.list", request),
      preview: (request) => invoke("checkpoints.preview", request),
      restore: (request) => invoke("checkpoints.restore", request),
      previewRewind: (request) => invoke("checkpoints.previewRewind", request),
      rewind: (request) => invoke("checkpoints.rewind", request),
    },
    on: (event, listener) => subscribe(event, listener),
  };
}

/** Turn whatever a transport threw into the API's failure shape. */
export function transportFailure(what: string, error: unknown): ApiResult<never> {
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, error: { message: `${what}: ${message}` } };
}
