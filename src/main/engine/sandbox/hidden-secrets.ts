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
