import { LatheError } from "./lathe-error.ts";

/** A checkpoint cannot be restored or a session rewound as asked: an unknown id, another folder, a session in use. */
export class CheckpointError extends LatheError {
  constructor(message: string, options?: ErrorOptions) {
    super("checkpoint", message, options);
  }
}
