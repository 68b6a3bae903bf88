import { realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { ModelError } from "./model-error.ts";

/** What a `gguf:` path may be besides a relative path: `~`, a URL or another address, a drive. */
const NOT_RELATIVE = /^(?:~(?:[/\\]|$)|[a-z][a-z0-9+.-]*:)/i;

/**
 * A model a file names (a settings file's `defaultModel`, an agent manifest's `model`), as the
 * run must read it: `gguf:` with a relative path means the file relative to the folder of the
 * file that names it (`"gguf:models/q.gguf"` in `<project>/.lathe/settings.json` is
 * `<project>/.lathe/models/q.gguf`), wherever the command runs from; so it becomes
 * `gguf:<absolute path>`. Any other spec is returned as it is.
 *
 * A naming file reached through a symbolic link (an agent kept in a dotfiles checkout and linked
 * into `~/.lathe/agents/`) is read where it really is: its path was written beside it, and it
 * names the same model through every link to it.
 */
export function fileModelSpec(spec: string, namingFile: string): string {
  const match = /^(\s*gguf:\s*)(.*)$/.exec(spec);
  if (!match) return spec;
  const file = (match[2] ?? "").trim();
  if (file === "" || path.isAbsolute(file) || NOT_RELATIVE.test(file)) return spec;
  return `gguf:${path.resolve(path.dirname(whereItIs(namingFile)), file)}`;
}

/** The file's real path; the path as given when it cannot be resolved (a file not there). */
function whereItIs(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file; // parsed from text alone (a test, a file since removed): its path as named
  }
}

/** A resumed session's model, as the resume must run it, and what the run is told about it. */
interface SessionModel {
  spec: string;
  notice?: string;
}

/**
 * The model a session recorded, as a resume must read it. Sessions recorded before gguf: models
 * were kept by their absolute path hold the path as it was written (`gguf:models/q.gguf`),
 * relative to the folder that run started in, which was not recorded: read against the folder a
 * resume starts in, it named another file or none. `lathe run` starts in the session's folder
 * unless --root names another, so the path is read against the session's folder when a file is
 * there (and the run is told so); otherwise it is refused, saying how to name the file.
 * Throws ModelError (`model_spec`).
 */
export async function sessionModelSpec(
  spec: string,
  session: { sessionId: string; root: string },
  /** How the host's user runs another file: `lathe run`'s --model by default. */
  anotherFile = "pass --model gguf:<its absolute path>",
): Promise<SessionModel> {
  const match = /^\s*gguf:\s*(.*)$/.exec(spec);
  const file = (match?.[1] ?? "").trim();
  if (!match || file === "" || path.isAbsolute(file) || NOT_RELATIVE.test(file)) return { spec };
  const inRoot = path.resolve(session.root, file);
  const found = await stat(inRoot).then(
    (info) => info.isFile(),
    () => false,
  );
  if (found) {
    return {
      spec: `gguf:${inRoot}`,
      notice: `Session ${session.sessionId} recorded its model as ${spec}, a path relative to the folder it ran in: it is read in the session's folder, as gguf:${inRoot}. To run another file, ${anotherFile}.`,
    };
  }
  throw new ModelError(
    "model_spec",
    `Session ${session.sessionId} recorded its model as ${spec}, a path relative to the folder it ran in, which was not recorded, and there is no ${file} in the session's folder ${session.root}. Name the model again by its absolute path: lathe run --resume ${session.sessionId} --model gguf:<the .gguf file's absolute path> (in the app, pick it in the model picker).`,
  );
}
