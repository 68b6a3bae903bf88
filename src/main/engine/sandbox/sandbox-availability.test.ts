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

describe("the real machine's check", () => {
  it.skipIf(process.platform === "win32")(
    "runs in the process spawner: the host neither loads the sandbox library nor starts the trial",
    async () => {
      const availability = new URL("./sandbox-availability.ts", import.meta.url).href;
      const spawner = new URL("../spawner/process-spawner.ts", import.meta.url).href;
      // The host as a child of its own, naming every package it resolves.
      const script = `
        import { registerHooks } from "node:module";
        const packages = new Set();
        registerHooks({
          resolve(specifier, context, next) {
            const result = next(specifier, context);
            const match = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(result.url);
            if (match) packages.add(match[1]);
            return result;
          },
        });
        const { machineSandbox } = await import(${JSON.stringify(availability)});
        const { processSpawner } = await import(${JSON.stringify(spawner)});
        const status = await machineSandbox();
        console.log(JSON.stringify({ status, spawner: processSpawner().pid, packages: [...packages] }));
        process.exit(0);
      `;
      const { spawnSync } = await import("node:child_process");
      const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(result.status, result.stderr).toBe(0);
      const said = JSON.parse(result.stdout) as {
        status: { active: boolean; reason?: string };
        spawner?: number;
        packages: string[];
      };
      // The check asked the spawner (started for it), and gave an answer with its reason.
      expect(said.spawner).toEqual(expect.any(Number));
      expect(said.status.active || typeof said.status.reason === "string").toBe(true);
      expect(said.packages).not.toContain("@anthropic-ai/sandbox-runtime");
    },
  );
});
