import { EventEmitter } from "node:events";

/** Events the engine emits to hosts. */
export interface EngineEventMap {
  /** Something failed that is the runtime's fault, not the model's: hosts log it. */
  "internal-error": [{ toolId: string; sessionId: string; error: unknown }];
}

export class EngineEvents extends EventEmitter<EngineEventMap> {}
