import { ToolCallError } from "../errors/tool-call-error.ts";

/**
 * A write the file system refused for a reason of the machine, not of Lathe: a read-only
 * workspace, a file or folder that is not writable, a full disk. The model is told plainly (the
 * error names the file, not a temporary one) so it can stop trying or tell the person; it is not
 * an internal error of the runtime.
 */
export function explainWriteFailure(err: unknown, display: string): ToolCallError | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const fail = (why: string, tag: string): ToolCallError =>
    new ToolCallError(`${display} cannot be written: ${why}`, tag, { cause: err });
  switch (code) {
    case "EROFS":
      return fail(
        "the workspace is on a read-only file system (EROFS). Writing again will not help: work without changing files, or tell the person.",
        "read_only_file_system",
      );
    case "EACCES":
    case "EPERM":
      return fail(
        `the file system denied it (${code}): the file or its folder is not writable for this user. Do not retry; tell the person, or write somewhere else in the workspace.`,
        "not_writable",
      );
    case "ENOSPC":
    case "EDQUOT":
      return fail(`the disk is full (${code}). Nothing was written; tell the person.`, "disk_full");
    default:
      return undefined;
  }
}
