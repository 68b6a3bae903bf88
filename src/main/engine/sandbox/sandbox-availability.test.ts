import { describe, expect, it } from "vitest";
import { machineSandbox, sandboxAvailability, type SandboxProbe } from "./sandbox-availability.ts";

function probe(overrides: Partial<SandboxProbe> = {}): SandboxProbe & { trials: number } {
  const p = {
    platform: "linux" as NodeJS.Platform,
    dependencies: () => ({ errors: [], warnings: [] }),
    trials: 0,
    async trial() {
      p.trials++;
      return undefined;
    },
    ...overrides,
  };
  return p;
}

const ON = { enabled: true, enabledBy: "/home/me/.lathe/settings.json" };

describe("sandbox availability: a real check, the reason, and the fix", () => {
  it("is active when the dependencies are there and a sandboxed command runs", async () => {
    const p = probe();
    expect(await sandboxAvailability(ON, p)).toEqual({ active: true, mechanism: "bubblewrap", warnings: [] });
    expect(p.trials).toBe(1);
  });

  it("names Seatbelt on macOS", async () => {
    expect(await sandboxAvailability(ON, probe({ platform: "darwin" }))).toMatchObject({
      active: true,
      mechanism: "Seatbelt",
    });
  });

  it.each<[string, Partial<SandboxProbe>, RegExp, RegExp]>([
    [
      "Windows",
      { platform: "win32" },
      /does not drive an OS sandbox on Windows yet/,
      /Linux or macOS \(on Windows, inside WSL 2/,
    ],
    [
      "bubblewrap missing",
      { dependencies: () => ({ errors: ["bubblewrap (bwrap) not installed"], warnings: [] }) },
      /cannot start: bubblewrap \(bwrap\) not installed/,
      /apt-get install bubblewrap socat ripgrep/,
    ],
    [
      "socat and ripgrep missing",
      {
        dependencies: () => ({ errors: ["socat not installed", "ripgrep (rg) not found"], warnings: [] }),
      },
      /socat not installed; ripgrep \(rg\) not found/,
      /apt-get install bubblewrap socat ripgrep/,
    ],
    [
      "no user namespaces",
      { trial: async () => "bwrap: No permissions to create new namespace" },
      /bubblewrap could not start a sandbox here \(bwrap: No permissions to create new namespace\)/,
      /kernel\.unprivileged_userns_clone=1.*apparmor_restrict_unprivileged_userns=0/,
    ],
  ])("is not active with %s, and says why and what to do", async (_name, overrides, reason, fix) => {
    const status = await sandboxAvailability(ON, probe(overrides));
    expect(status.active).toBe(false);
    expect(status.reason).toMatch(reason);
    expect(status.fix).toMatch(fix);
  });

  it("does not try a sandbox whose dependencies are missing", async () => {
    const p = probe({ dependencies: () => ({ errors: ["bubblewrap (bwrap) not installed"], warnings: [] }) });
    await sandboxAvailability(ON, p);
    expect(p.trials).toBe(0);
  });

  it("is off when the settings turn it off, naming the file, without probing the machine", async () => {
    const p = probe();
    const status = await sandboxAvailability({ enabled: false, enabledBy: "/u/settings.json" }, p);
    expect(status).toMatchObject({
      active: false,
      reason: expect.stringContaining('"sandbox": {"enabled": false} in /u/settings.json'),
      fix: expect.stringContaining("/u/settings.json"),
    });
    expect(p.trials).toBe(0);
  });

  it("checks this machine for real once per process", async () => {
    const first = machineSandbox();
    expect(machineSandbox()).toBe(first);
    const status = await first;
    // Whatever this machine says, it says it with a reason and a fix, or it is active.
    if (!status.active) console.log(`this machine has no sandbox: ${status.reason}`);
    expect(status.active || (status.reason !== undefined && status.fix !== undefined)).toBe(true);
  });
});
