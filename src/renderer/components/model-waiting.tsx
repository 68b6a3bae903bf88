import { useEffect, useState } from "react";
import { waitingLabel, type ModelWait } from "../state/transcript.ts";

/**
 * "waiting for the model — 12 s" on the running turn while the model is silent, counting on
 * each second from the silence the engine reported. Stop stays available all along.
 */
export function ModelWaiting({ wait }: { wait: ModelWait }) {
  const [shownAt] = useState(() => Date.now());
  const [now, setNow] = useState(shownAt);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const limit = Math.round(wait.timeoutMs / 1_000);
  const setting = wait.kind === "idle" ? "idleMs" : "firstByteMs";
  const title =
    wait.kind === "model-busy"
      ? `This model runs one answer at a time, and another run (another tab, a task) is using it: this step starts when that answer ends. The wait does not count toward the ${limit} s the model has to start answering (timeouts.${setting} of the model's provider in settings).`
      : `The step fails after ${limit} s of silence (timeouts.${setting} of the model's provider in settings).`;
  return (
    <p className="muted model-waiting" role="status" title={title}>
      {waitingLabel(wait, now - shownAt)}
    </p>
  );
}
