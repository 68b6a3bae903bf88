import { describe, expect, it } from "vitest";
import { SessionsInUse } from "./sessions-in-use.ts";

describe("SessionsInUse", () => {
  it("tells when a run starts or ends in a session, and only then", () => {
    let changes = 0;
    const sessions = new SessionsInUse(() => changes++);
    sessions.add("s-1");
    expect(changes).toBe(1);
    sessions.add("s-1"); // already running: no change
    expect(changes).toBe(1);
    expect(sessions.delete("s-2")).toBe(false); // never ran: no change
    expect(changes).toBe(1);
    expect(sessions.delete("s-1")).toBe(true);
    expect(changes).toBe(2);
    expect([...sessions]).toEqual([]);
  });
});
