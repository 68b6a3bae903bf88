import path from "node:path";

/**
 * Where a person's credentials usually live under their home folder: the keys, tokens and
 * passwords of ssh, gpg, the cloud command lines, container and cluster tools, git and the
 * netrc. Every process Lathe confines (bash, plugin commands, stdio MCP servers) starts with
 * these hidden unless the user's `sandbox.denyRead` says otherwise: a command run for a model has
 * no business reading them, and one that copies them into the workspace hands them to whatever
 * reads the workspace next. (Sandboxed commands have no network unless `sandbox.allowNetwork`
 * grants some, so git or ssh to a server could not have used them anyway.)
 */
export const DEFAULT_HIDDEN_SECRETS: readonly string[] = [
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.config/gh",
  "~/.kube",
  "~/.docker/config.json",
  "~/.netrc",
  "~/.git-credentials",
  "~/.password-store",
  "~/.local/share/keyrings",
];

/**
 * Variables that move those credentials elsewhere: what each names (a file or folder, some a
 * folder holding it, KUBECONFIG a list). Set in the environment Lathe runs in, they mean the
 * person's keys live there and not (only) where DEFAULT_HIDDEN_SECRETS looks.
 */
const MOVED_BY: readonly { variable: string; under?: string; list?: boolean }[] = [
  { variable: "AWS_SHARED_CREDENTIALS_FILE" },
  { variable: "AWS_CONFIG_FILE" },
  { variable: "GOOGLE_APPLICATION_CREDENTIALS" },
  { variable: "CLOUDSDK_CONFIG" },
  { variable: "AZURE_CONFIG_DIR" },
  { variable: "GH_CONFIG_DIR" },
  { variable: "KUBECONFIG", list: true },
  { variable: "DOCKER_CONFIG" },
  { variable: "GNUPGHOME" },
  { variable: "PASSWORD_STORE_DIR" },
  { variable: "XDG_CONFIG_HOME", under: "gh" },
  { variable: "XDG_CONFIG_HOME", under: "gcloud" },
  { variable: "XDG_CONFIG_HOME", under: "git/credentials" },
  { variable: "XDG_DATA_HOME", under: "keyrings" },
];

/**
 * The places `env` says credentials were moved to (MOVED_BY), absolute and normalised. A
 * relative value is left out (it means a different place for every process), and so is one that
 * is the root or holds the home folder: hiding it would hide every file of the person.
 */
export function movedSecrets(env: Readonly<Record<string, string | undefined>>, home: string): string[] {
  const found = new Set<string>();
  for (const { variable, under, list } of MOVED_BY) {
    const value = env[variable];
    if (!value) continue;
    for (const part of list ? value.split(":") : [value]) {
      if (!path.isAbsolute(part)) continue;
      const p = path.resolve(part, under ?? ".");
      if (p === path.parse(p).root || home === p || home.startsWith(`${p}/`)) continue;
      found.add(p);
    }
  }
  return [...found];
}
