import type { ProcessSandbox } from "../../src/main/engine/sandbox/process-sandbox.ts";

/**
 * The sandbox for pipeline tests whose tools start no process: it refuses every confinement, so
 * a tool that tries to start one fails the test instead of running unconfined.
 */
export const NO_PROCESSES: ProcessSandbox = {
  status: { active: false, reason: "no process is started in this test", fix: "none needed", warnings: [] },
  confinement: () => Promise.reject(new Error("this test starts no process")),
};
