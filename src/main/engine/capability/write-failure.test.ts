import { describe, expect, it } from "vitest";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { explainWriteFailure } from "./write-failure.ts";

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: open '/ws/.notes.md.lathe-1a2b.tmp'`), { code });
}

describe("writes the file system refuses", () => {
  it.each([
    [
      "EROFS",
      "read_only_file_system",
      /^notes\.md cannot be written: the workspace is on a read-only file system \(EROFS\)\. Writing again will not help/,
    ],
    [
      "EACCES",
      "not_writable",
      /^notes\.md cannot be written: the file system denied it \(EACCES\): the file or its folder is not writable/,
    ],
    ["EPERM", "not_writable", /denied it \(EPERM\)/],
    ["ENOSPC", "disk_full", /^notes\.md cannot be written: the disk is full \(ENOSPC\)/],
    ["EDQUOT", "disk_full", /disk is full \(EDQUOT\)/],
  ])("%s becomes an error the model can act on, naming the file", (code, tag, message) => {
    const explained = explainWriteFailure(errno(code), "notes.md");
    expect(ToolCallError.isInstance(explained)).toBe(true);
    expect(explained?.code).toBe(tag);
    expect(explained?.message).toMatch(message);
    expect(explained?.message).not.toContain(".tmp");
  });

  it.each([["EIO"], ["ENOENT"], [""]])("leaves other failures (%s) to the runtime", (code) => {
    expect(explainWriteFailure(errno(code), "notes.md")).toBeUndefined();
    expect(explainWriteFailure("not an error", "notes.md")).toBeUndefined();
  });
});
