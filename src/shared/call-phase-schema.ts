// Where a started tool call stands before its envelope (the engine's CallPhase): `queued` (held
// behind calls issued before it), `awaiting-approval` (its prompt, or an identical call's, waits
// for a person), `running` (it waited, and runs now).
import { z } from "zod";

export const CallPhaseSchema = z.enum(["queued", "awaiting-approval", "running"]);

export type CallPhase = z.output<typeof CallPhaseSchema>;
