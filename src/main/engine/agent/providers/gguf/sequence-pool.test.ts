import { describe, expect, it } from "vitest";
import { SequencePool } from "./sequence-pool.ts";

describe("SequencePool", () => {
  it("lends each item to one caller and serves waiters in arrival order", async () => {
    const pool = new SequencePool(["a"]);
    const first = await pool.acquire();
    const order: string[] = [];
    const second = pool.acquire().then((item) => order.push(`second:${item}`));
    const third = pool.acquire().then((item) => order.push(`third:${item}`));
    await Promise.resolve();
    expect(order).toEqual([]);
    pool.release(first);
    await second;
    expect(order).toEqual(["second:a"]);
    pool.release("a");
    await third;
    expect(order).toEqual(["second:a", "third:a"]);
  });

  it("stops waiting when the caller aborts, and the item goes to the next waiter", async () => {
    const pool = new SequencePool(["a"]);
    const held = await pool.acquire();
    const controller = new AbortController();
    const abandoned = pool.acquire(controller.signal);
    const next = pool.acquire();
    controller.abort(new Error("user stopped"));
    await expect(abandoned).rejects.toThrow("user stopped");
    pool.release(held);
    await expect(next).resolves.toBe("a");
  });

  it("tells a caller that must wait, before it waits, and no caller that gets an item at once", async () => {
    const pool = new SequencePool(["a"]);
    const told: string[] = [];
    const first = await pool.acquire(undefined, () => told.push("first"));
    const second = pool.acquire(undefined, () => told.push("second"));
    expect(told).toEqual(["second"]);
    pool.release(first);
    await expect(second).resolves.toBe("a");
  });

  it("refuses callers once closed", async () => {
    const pool = new SequencePool(["a"]);
    await pool.acquire();
    const waiting = pool.acquire();
    pool.close();
    await expect(waiting).rejects.toThrow("The model was unloaded.");
    await expect(pool.acquire()).rejects.toThrow("The model was unloaded.");
  });
});
