import { z } from "zod";

/**
 * Have zod check values without compiling a checker first. By default zod compiles a function
 * (`new Function`) for each object schema the first time it is built, which pays for itself only
 * over many parses: a one-shot command (`lathe tools`, `lathe call`) parses each schema once or
 * twice, and compiling cost it more than checking. Only schemas built after the call are affected,
 * so a host calls it before it creates its engine. What is accepted and refused is unchanged.
 */
export function validateWithoutJit(): void {
  z.config({ jitless: true });
}
