import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Bump when what the login-shell read returns, or what goes into the key, changes. */
const VERSION = "lathe-login-path-1";

/** The files a login shell of this kind reads at start (those of its kind: bash, zsh, fish, other sh). */
export function loginFiles(shell: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? os.homedir();
  const name = path.basename(shell);
  // macOS's path_helper (run by /etc/profile and /etc/zprofile) builds PATH from these.
  const helper = process.platform === "darwin" ? ["/etc/paths", "/etc/paths.d"] : [];
  if (name === "zsh" || name.startsWith("zsh-")) {
    const dot = env.ZDOTDIR || home;
    const system = ["zshenv", "zprofile", "zshrc", "zlogin"].flatMap((f) => [`/etc/${f}`, `/etc/zsh/${f}`]);
    const own = [".zshenv", ".zprofile", ".zshrc", ".zlogin"].map((f) => path.join(dot, f));
    return [...helper, ...system, ...own];
  }
  if (name === "fish") {
    const config = path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "fish");
    return [
      ...helper,
      "/etc/fish/config.fish",
      "/etc/fish/conf.d",
      path.join(config, "config.fish"),
      path.join(config, "conf.d"),
    ];
  }
  const profile = [...helper, "/etc/profile", "/etc/profile.d", path.join(home, ".profile")];
  if (name === "bash" || name.startsWith("bash-")) {
    return [
      ...profile,
      "/etc/bash.bashrc",
      "/etc/bashrc",
      ...[".bash_profile", ".bash_login", ".bashrc"].map((f) => path.join(home, f)),
    ];
  }
  return profile;
}

/** A file's identity for the key: "-" when it is not there (creating it changes the key). */
function fileMark(file: string): string {
  const info = statSync(file, { throwIfNoEntry: false });
  return info ? `${info.ino}:${info.size}:${info.mtimeMs}` : "-";
}

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return "-";
  }
}

/**
 * What decides the PATH `shell -l` sets up, hashed: the shell (its path and which file it is),
 * HOME, ZDOTDIR and XDG_CONFIG_HOME (where it looks for its files), the user, the PATH it starts
 * with (many profiles add to it rather than set it), and the size and modification time of each
 * login file of that shell (one created, edited or deleted changes the key). A few stats: far cheaper than the login shell. What the files read in turn (nvm's alias,
 * a file sourced from elsewhere) is not in it: the cache's maximum age covers those.
 */
export function loginPathKey(shell: string, env: NodeJS.ProcessEnv): string {
  const parts = [
    VERSION,
    process.platform,
    shell,
    fileMark(shell),
    env.HOME ?? os.homedir(),
    env.ZDOTDIR ?? "-",
    env.XDG_CONFIG_HOME ?? "-",
    env.PATH ?? "-",
    String(process.getuid?.() ?? "-"),
    userName(),
    ...loginFiles(shell, env).map((file) => `${file}=${fileMark(file)}`),
  ];
  return createHash("sha256").update(parts.join("\u0000")).digest("hex");
}
