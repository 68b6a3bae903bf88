import type { ShellWord, SimpleCommand } from "../shell/shell-analysis.ts";
import type { WatchdogCheck } from "../watchdog.ts";
import { baseName, shellCommands } from "./shell-args.ts";

const RAW_SOCKETS = new Set(["nc", "ncat", "netcat", "socat", "telnet"]);
const COPIERS = new Set(["scp", "sftp", "rsync"]);
const CURL_DATA = ["-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--json"];
const CURL_FORM = ["-F", "--form", "--form-string"];
const CURL_UPLOAD = ["-T", "--upload-file"];
const WGET_UPLOAD = ["--post-file", "--body-file"];

function hostOf(word: ShellWord): string | undefined {
  const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^/:?#]+)/i.exec(word.text);
  if (url) return url[1]?.toLowerCase();
  const remote = /^(?:[^@/\s]+@)?([A-Za-z0-9.-]+):/.exec(word.text);
  return remote && !word.text.startsWith("/") ? remote[1]?.toLowerCase() : undefined;
}

function valueAfter(args: readonly ShellWord[], i: number, options: readonly string[]): string | undefined {
  const a = args[i]?.text ?? "";
  for (const o of options) {
    if (a === o) return args[i + 1]?.text ?? "";
    if (o.startsWith("--") && a.startsWith(`${o}=`)) return a.slice(o.length + 1);
    if (!o.startsWith("--") && a.startsWith(o) && a.length > o.length) return a.slice(o.length);
  }
  return undefined;
}

/** Why this command looks like it sends file contents somewhere, or undefined. */
function uploadShape(command: SimpleCommand): string | undefined {
  const name = baseName(command);
  const args = command.args;
  if (RAW_SOCKETS.has(name)) return `${name} opens a raw network connection that can carry file contents`;
  if (COPIERS.has(name) && args.some((a) => hostOf(a) !== undefined))
    return `${name} copies files to another machine`;
  for (let i = 0; i < args.length; i++) {
    if (name === "curl") {
      const data = valueAfter(args, i, CURL_DATA);
      if (data !== undefined && (data.startsWith("@") || /^[^=]*@/.test(data) || data.includes("$("))) {
        return `curl sends the contents of ${data.replace(/^[^@]*@/, "")} as request data`;
      }
      const form = valueAfter(args, i, CURL_FORM);
      if (form !== undefined && /=[@<]/.test(form)) return `curl uploads a file as a form field (${form})`;
      const upload = valueAfter(args, i, CURL_UPLOAD);
      if (upload !== undefined) return `curl uploads ${upload}`;
    }
    if (name === "wget") {
      const upload = valueAfter(args, i, WGET_UPLOAD);
      if (upload !== undefined) return `wget posts the contents of ${upload}`;
    }
  }
  return undefined;
}

/**
 * Flag shapes of exfiltration — file contents uploaded to a host the user has not allowed —
 * for a person to look at. Headless hosts turn the ask into a refusal.
 */
export const exfiltrationGuard: WatchdogCheck = {
  name: "exfiltration",
  check(call) {
    for (const { command, text } of shellCommands(call.accesses)) {
      const shape = uploadShape(command);
      if (!shape) continue;
      const hosts = command.args.map(hostOf).filter((h): h is string => h !== undefined);
      if (hosts.length > 0 && hosts.every((h) => call.hostAllowed(h))) continue;
      const where =
        hosts.length > 0
          ? `to ${hosts.join(", ")}, which is not an allowed host`
          : "to a host it cannot name";
      return {
        decision: "ask",
        reason: `"${text}" looks like an upload of file contents ${where}: ${shape}. Allow the host with a net.fetch rule if this is intended.`,
      };
    }
    return { decision: "allow" };
  },
};
