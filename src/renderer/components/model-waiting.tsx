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
  const setting = wait.kind === "first-byte" ? "firstByteMs" : "idleMs";
  return (
    <p
      className="muted model-waiting"
      role="status"
      title={`The step fails after ${limit} s of silence (timeouts.${setting} of the model's provider in settings).`}
    >
      {waitingLabel(wait, now - shownAt)}
    </p>
  );
}
