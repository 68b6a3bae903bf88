import { effects, unclear, type EffectsOf } from "./effect-kit.ts";

/**
 * Commands that change the machine rather than files Lathe can name: mounts, kernel settings,
 * services, users, packages, the clock. Their read-only forms (`mount` alone, `systemctl status`,
 * `date` without -s) are left alone.
 */

function refuse(
  what: string,
  readOnly: (args: readonly { text: string; literal: boolean }[]) => boolean = () => false,
): EffectsOf {
  return (program, args) => (readOnly(args) ? effects() : unclear(`"${program}" ${what}`));
}

type Args = readonly { text: string; literal: boolean }[];

const noArgs = (args: Args): boolean => args.length === 0;
const onlyOptions = (allowed: RegExp) => (args: Args) => args.every((a) => a.literal && allowed.test(a.text));
/** Read-only when the first word that is not an option is one of these (or there is none). */
const verbIs = (verbs: RegExp) => (args: Args) => {
  if (args.some((a) => !a.literal)) return false;
  const verb = args.find((a) => !a.text.startsWith("-"));
  return verb === undefined || verbs.test(verb.text);
};
const hasOption = (options: RegExp) => (args: Args) =>
  args.every((a) => a.literal) && args.some((a) => options.test(a.text));

export const SYSTEM_EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ["mount", refuse("mounts file systems, which can put other folders over the workspace", noArgs)],
  ["umount", refuse("unmounts file systems")],
  ["swapon", refuse("changes swap devices", onlyOptions(/^(--show|-s|--summary)$/))],
  ["swapoff", refuse("changes swap devices")],
  [
    "sysctl",
    refuse("changes kernel settings", (args) =>
      args.every(
        (a) =>
          a.literal &&
          !a.text.includes("=") &&
          !/^(-w|--write|-p|--load|--system|-[A-Za-z]*[wp])/.test(a.text),
      ),
    ),
  ],
  ["modprobe", refuse("loads or removes kernel modules")],
  ["insmod", refuse("loads kernel modules")],
  ["rmmod", refuse("removes kernel modules")],
  ["reboot", refuse("restarts the machine")],
  ["shutdown", refuse("stops the machine")],
  ["halt", refuse("stops the machine")],
  ["poweroff", refuse("stops the machine")],
  [
    "systemctl",
    refuse(
      "starts, stops or changes services",
      verbIs(
        /^(status|show|list-units|list-unit-files|list-timers|list-sockets|list-dependencies|is-active|is-enabled|is-failed|cat)$/,
      ),
    ),
  ],
  ["service", refuse("starts, stops or changes services")],
  ["timedatectl", refuse("changes the clock or time zone", verbIs(/^(status|show|list-timezones)$/))],
  ["hwclock", refuse("changes the hardware clock", onlyOptions(/^(-r|--show|--get)$/))],
  [
    "date",
    refuse(
      "sets the system clock",
      (args) => !args.some((a) => !a.literal || /^(-s|--set)/.test(a.text) || /^-[A-Za-z]*s/.test(a.text)),
    ),
  ],
  [
    "hostname",
    refuse("sets the machine's name", (args) =>
      args.every((a) => a.literal && a.text.startsWith("-") && !/^(-F|--file|-b|--boot)$/.test(a.text)),
    ),
  ],
  ["useradd", refuse("adds users")],
  ["usermod", refuse("changes users")],
  ["userdel", refuse("removes users")],
  ["groupadd", refuse("adds groups")],
  ["groupmod", refuse("changes groups")],
  ["groupdel", refuse("removes groups")],
  ["passwd", refuse("changes passwords")],
  ["chpasswd", refuse("changes passwords")],
  ["chsh", refuse("changes login shells")],
  ["visudo", refuse("changes sudo's rules")],
  ["setcap", refuse("gives programs capabilities")],
  [
    "update-alternatives",
    refuse(
      "changes which programs system names run",
      hasOption(/^(--display|--query|--list|--get-selections)$/),
    ),
  ],
  ["ldconfig", refuse("changes which libraries programs load", onlyOptions(/^(-p|--print-cache)$/))],
  ["apt", refuse("installs or removes system packages", verbIs(/^(list|search|show|policy)$/))],
  ["apt-get", refuse("installs or removes system packages")],
  [
    "dpkg",
    refuse(
      "installs or removes system packages",
      (args) =>
        /^(-l|-L|-s|-S|--list|--listfiles|--status|--search|--print-architecture|--get-selections)$/.test(
          args[0]?.text ?? "",
        ) && args.every((a) => a.literal),
    ),
  ],
  [
    "rpm",
    refuse(
      "installs or removes system packages",
      (args) => /^(-q[a-zA-Z]*|--query)$/.test(args[0]?.text ?? "") && args.every((a) => a.literal),
    ),
  ],
  ["yum", refuse("installs or removes system packages")],
  ["dnf", refuse("installs or removes system packages")],
  ["apk", refuse("installs or removes system packages")],
  ["pacman", refuse("installs or removes system packages")],
  [
    "brew",
    refuse(
      "installs or removes packages outside the workspace",
      verbIs(/^(list|ls|info|search|config|doctor|outdated|deps|uses|--version)$/),
    ),
  ],
  [
    "iptables",
    refuse(
      "changes the firewall",
      (args) =>
        hasOption(/^(-L|-S|--list|--list-rules)$/)(args) &&
        !args.some((a) =>
          /^(-[AIDFXPNRZE]|--(append|insert|delete|flush|policy|new-chain|replace|zero|rename-chain|delete-chain))$/.test(
            a.text,
          ),
        ),
    ),
  ],
  ["nft", refuse("changes the firewall")],
  [
    "ip",
    refuse("changes network settings", (args) => {
      const words = args.filter((a) => !a.text.startsWith("-"));
      return (
        args.every((a) => a.literal) &&
        (words.length <= 1 || /^(show|list|ls|get|lst)$/.test(words[1]?.text ?? ""))
      );
    }),
  ],
  ["ifconfig", refuse("changes network settings", (args) => args.length <= 1)],
  ["chroot", refuse("runs a command with another root folder")],
  ["mkfs", refuse("formats a device")],
  ["fdisk", refuse("changes partitions", onlyOptions(/^(-l|--list)$/))],
  ["losetup", refuse("attaches loop devices", onlyOptions(/^(-a|--all|-l|--list)$/))],
]);
