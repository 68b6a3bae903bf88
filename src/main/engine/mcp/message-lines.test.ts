import { describe, expect, it } from "vitest";
import { MessageLines, oversizedResponseId, type OversizedLine } from "./message-lines.ts";

const big = "x".repeat(2_000);

/** A line as a server writes it, past a 1,000-byte cap. */
function oversized(message: string): OversizedLine {
  const lines = new MessageLines(1_000);
  const read = lines.push(Buffer.from(`${message}\n`));
  expect(read).toHaveLength(1);
  const only = read[0];
  if (!only || !("oversized" in only))
    throw new Error(`expected an oversized line, got ${JSON.stringify(only)}`);
  return only.oversized;
}

describe("MessageLines", () => {
  it("splits lines across chunks, strips a CR and skips blank lines", () => {
    const lines = new MessageLines(1_000);
    expect(lines.push(Buffer.from('{"a":1}\r\n\n{"b"'))).toEqual([{ line: '{"a":1}' }]);
    expect(lines.push(Buffer.from(":2}\n"))).toEqual([{ line: '{"b":2}' }]);
  });

  it("counts a line past the cap without keeping it, and reads the next one whole", () => {
    const lines = new MessageLines(1_000);
    const first = lines.push(Buffer.from(`{"result":"${big}`));
    expect(first).toEqual([]);
    const rest = lines.push(Buffer.from(`${big}","jsonrpc":"2.0","id":7}\n{"next":true}\n`));
    expect(rest).toHaveLength(2);
    expect(rest[0]).toMatchObject({ oversized: { bytes: 4_036 } });
    expect(rest[1]).toEqual({ line: '{"next":true}' });
  });
});

describe("which request an oversized line answers", () => {
  it.each([
    ["a TypeScript SDK response (id last)", `{"result":{"content":"${big}"},"jsonrpc":"2.0","id":7}`, 7],
    ["a Python SDK response (id first)", `{"jsonrpc":"2.0","id":8,"result":{"content":"${big}"}}`, 8],
    ["an error response", `{"jsonrpc":"2.0","id":"req-9","error":{"code":1,"message":"${big}"}}`, "req-9"],
    ["a string id with an escaped quote", `{"result":"${big}","jsonrpc":"2.0","id":"a\\"b"}`, 'a"b'],
    // Not answers to Lathe: none of its requests may be failed for them.
    [
      "a request of the server's",
      `{"method":"sampling/createMessage","params":"${big}","jsonrpc":"2.0","id":3}`,
      undefined,
    ],
    ["a request, id first", `{"jsonrpc":"2.0","id":3,"method":"roots/list","params":"${big}"}`, undefined],
    [
      "a notification",
      `{"method":"notifications/message","params":{"data":"${big}"},"jsonrpc":"2.0"}`,
      undefined,
    ],
    ["an id nested in the result only", `{"result":{"content":"${big}","meta":{"id":5}}}`, undefined],
    ["not JSON-RPC at all", `${big}"id":5}`, undefined],
  ])("%s", (_what, message, id) => {
    expect(oversizedResponseId(oversized(message))).toBe(id);
  });
});
