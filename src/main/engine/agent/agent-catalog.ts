import { agentManifestEntries, type AgentManifestEntry } from "./agent-manifest-entries.ts";
import { readAgentManifestFile } from "./agent-manifest-file.ts";
import path from "node:path";
import { decodeText } from "../builtin/text-codec.ts";
import { LatheError } from "../errors/lathe-error.ts";
import { ManifestError } from "../errors/manifest-error.ts";
import type { AgentLayer, AgentManifest } from "./agent-manifest.ts";
import { AgentNotFoundError } from "./agent-not-found-error.ts";
import { defaultAgent } from "./default-agent.ts";
import type { parseAgentManifest } from "./parse-agent-manifest.ts";

interface AgentCatalogInput {
  root: string;
  latheHome: string;
  /** Project agents are read only from a trusted folder (they carry permission rules and prompts). */
  projectTrusted: boolean;
}

type Entry = { manifest: AgentManifest } | { error: ManifestError; source: string };

/** The agents a run can use: built-in, the user's (`$LATHE_HOME/agents`), the project's. */
export interface AgentCatalog {
  /** Every valid agent, by id; a later layer shadows an earlier one. */
  agents(): AgentManifest[];
  /** Manifests that failed to parse, with the reason and the fix. */
  problems(): ManifestError[];
  notices: string[];
  /** The agent with this id; throws its ManifestError when its file is broken, AgentNotFoundError when there is none. */
  get(id: string): AgentManifest;
}

type Parse = typeof parseAgentManifest;

function readLayer(
  files: readonly AgentManifestEntry[],
  layer: AgentLayer,
  parse: Parse,
  into: Map<string, Entry>,
): void {
  for (const { file, refused } of files) {
    if (refused !== undefined) {
      into.set(path.basename(file, ".md"), { error: new ManifestError(refused), source: file });
      continue;
    }
    try {
      // Decoded as a skill's file is (a BOM, UTF-16 from Windows Notepad, latin1), not as UTF-8 only.
      const manifest = parse(decodeText(readAgentManifestFile(file)).text, file, layer);
      into.set(manifest.id, { manifest });
    } catch (err) {
      if (!LatheError.isInstance(err) || err.code !== "manifest") throw err;
      into.set(path.basename(file, ".md"), { error: err as ManifestError, source: file });
    }
  }
}

/**
 * Discover agent manifests. A broken file does not hide the others; asking for it gives its
 * error. (The YAML parser loads only when there are manifest files to read.)
 */
export async function loadAgentCatalog(input: AgentCatalogInput): Promise<AgentCatalog> {
  const entries = new Map<string, Entry>();
  const builtin = defaultAgent();
  entries.set(builtin.id, { manifest: builtin });
  const globalDir = path.join(input.latheHome, "agents");
  const projectDir = path.join(input.root, ".lathe", "agents");
  const globalFiles = agentManifestEntries(globalDir);
  const projectFiles = agentManifestEntries(projectDir, input.root);
  const notices: string[] = [];
  if (globalFiles.length > 0 || (input.projectTrusted && projectFiles.length > 0)) {
    const { parseAgentManifest: parse } = await import("./parse-agent-manifest.ts");
    readLayer(globalFiles, "global", parse, entries);
    if (input.projectTrusted) readLayer(projectFiles, "project", parse, entries);
  }
  if (!input.projectTrusted) {
    const ignored = projectFiles.length;
    if (ignored > 0) {
      notices.push(
        `This folder is not trusted, so its ${ignored} agent manifest${ignored > 1 ? "s" : ""} in ${projectDir} ${ignored > 1 ? "are" : "is"} ignored. Review ${ignored > 1 ? "them" : "it"}, then run: lathe trust --root ${input.root}`,
      );
    }
  }
  const valid = (): AgentManifest[] =>
    [...entries.values()]
      .flatMap((e) => ("manifest" in e ? [e.manifest] : []))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    agents: valid,
    problems: () => [...entries.values()].flatMap((e) => ("error" in e ? [e.error] : [])),
    notices,
    get(id) {
      const entry = entries.get(id);
      if (!entry) {
        const where = input.projectTrusted ? `${globalDir} or ${projectDir}` : globalDir;
        throw new AgentNotFoundError(
          `There is no agent "${id}". Agents: ${valid()
            .map((a) => a.id)
            .join(
              ", ",
            )}. Add ${id}.md to ${where} to define it.${notices.length > 0 ? ` (${notices.join(" ")})` : ""}`,
        );
      }
      if ("error" in entry) throw entry.error;
      return entry.manifest;
    },
  };
}
