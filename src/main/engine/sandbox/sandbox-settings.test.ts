import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SettingsSchema } from "../config/lathe-settings.ts";
import { McpServerSchema } from "../config/lathe-settings.ts";
import { DEFAULT_HIDDEN_ENV } from "./hidden-env.ts";
import { DEFAULT_HIDDEN_SECRETS } from "./hidden-secrets.ts";
import { effectiveSandboxSettings, type SandboxSettings } from "./sandbox-settings.ts";

const FILES = { user: "/home/me/.lathe/settings.json", project: "/work/p/.lathe/settings.json" };
const home = os.homedir();

describe("sandbox settings: the user decides, a project may only narrow", () => {
  it.each<[string, SandboxSettings | undefined, SandboxSettings | undefined, object]>([
    [
      "on by default, nothing allowed",
      undefined,
      undefined,
      { enabled: true, allowWrite: [], allowNetwork: [] },
    ],
    [
      "the user's lists, ~ expanded",
      { allowWrite: ["~/cache", "/opt/build"], allowNetwork: ["registry.npmjs.org"] },
      undefined,
      {
        enabled: true,
        allowWrite: [path.join(home, "cache"), "/opt/build"],
        allowNetwork: ["registry.npmjs.org"],
      },
    ],
    [
      "a project keeps fewer of the user's entries",
      { allowWrite: ["/opt/a", "/opt/b"], allowNetwork: ["a.example", "b.example"] },
      { allowWrite: ["/opt/b"], allowNetwork: [] },
      { enabled: true, allowWrite: ["/opt/b"], allowNetwork: [] },
    ],
    [
      "a project cannot add entries the user lacks",
      { allowWrite: ["/opt/a"], allowNetwork: ["a.example"] },
      { allowWrite: ["/opt/a", "/etc"], allowNetwork: ["evil.example", "A.EXAMPLE"] },
      { enabled: true, allowWrite: ["/opt/a"], allowNetwork: ["a.example"] },
    ],
    [
      "a project cannot turn the sandbox off",
      undefined,
      { enabled: false },
      { enabled: true, enabledBy: FILES.user },
    ],
    [
      "a project can turn it back on",
      { enabled: false },
      { enabled: true },
      { enabled: true, enabledBy: FILES.project },
    ],
    ["the user can turn it off", { enabled: false }, undefined, { enabled: false, enabledBy: FILES.user }],
  ])("%s", (_name, user, project, expected) => {
    expect(effectiveSandboxSettings(user, project, FILES)).toMatchObject(expected);
  });

  it.each<[string, SandboxSettings | undefined, SandboxSettings | undefined, string[]]>([
    [
      "where credentials live, hidden by default",
      undefined,
      undefined,
      DEFAULT_HIDDEN_SECRETS.map((p) => path.join(home, p.slice(2))),
    ],
    [
      "the user's own list replaces the default",
      { denyRead: ["~/private", "/srv/keys"] },
      undefined,
      [path.join(home, "private"), "/srv/keys"],
    ],
    ["an empty list hides nothing", { denyRead: [] }, undefined, []],
    [
      "a project hides more (narrowing), never less",
      { denyRead: ["~/.ssh"] },
      { denyRead: ["/srv/keys", "~/.ssh"] },
      [path.join(home, ".ssh"), "/srv/keys"],
    ],
    [
      "a project's empty list shows nothing the user hid",
      { denyRead: ["~/.ssh"] },
      { denyRead: [] },
      [path.join(home, ".ssh")],
    ],
  ])("denyRead: %s", (_name, user, project, expected) => {
    expect(effectiveSandboxSettings(user, project, FILES, {}).denyRead).toEqual(expected);
  });

  // The same rule for variables: the user's list replaces the default, a project only adds.
  it.each<[string, SandboxSettings | undefined, SandboxSettings | undefined, readonly string[]]>([
    ["the usual credential variables withheld by default", undefined, undefined, DEFAULT_HIDDEN_ENV],
    ["the user's own list replaces the default", { denyEnv: ["GH_TOKEN"] }, undefined, ["GH_TOKEN"]],
    ["an empty list withholds nothing", { denyEnv: [] }, undefined, []],
    [
      "a project withholds more (once per name, any case), never less",
      { denyEnv: ["GH_TOKEN"] },
      { denyEnv: ["DEPLOY_KEY", "gh_token"] },
      ["GH_TOKEN", "DEPLOY_KEY"],
    ],
    [
      "a project's empty list gives back nothing the user withheld",
      undefined,
      { denyEnv: [] },
      DEFAULT_HIDDEN_ENV,
    ],
    [
      "a project's list is added to the default",
      undefined,
      { denyEnv: ["DEPLOY_KEY"] },
      [...DEFAULT_HIDDEN_ENV, "DEPLOY_KEY"],
    ],
  ])("denyEnv: %s", (_name, user, project, expected) => {
    expect(effectiveSandboxSettings(user, project, FILES, {}).denyEnv).toEqual(expected);
  });

  // A person whose keys live elsewhere says so in the environment (a CI runner's service
  // account key, a dotfiles layout with XDG folders): the default hides those places too.
  it.each<[string, Record<string, string>, string[]]>([
    ["a service account key", { GOOGLE_APPLICATION_CREDENTIALS: "/etc/gcp/key.json" }, ["/etc/gcp/key.json"]],
    ["AWS files elsewhere", { AWS_SHARED_CREDENTIALS_FILE: "/srv/aws/creds" }, ["/srv/aws/creds"]],
    ["every kubeconfig of a list", { KUBECONFIG: "/k/a.yaml:/k/b.yaml" }, ["/k/a.yaml", "/k/b.yaml"]],
    [
      "gh, gcloud and git's tokens under XDG_CONFIG_HOME",
      { XDG_CONFIG_HOME: "/cfg" },
      ["/cfg/gh", "/cfg/gcloud", "/cfg/git/credentials"],
    ],
    ["the keyrings under XDG_DATA_HOME", { XDG_DATA_HOME: "/data/" }, ["/data/keyrings"]],
    ["not a relative path", { GNUPGHOME: "gnupg", DOCKER_CONFIG: "./docker" }, []],
    [
      "not the root or the home folder's",
      { DOCKER_CONFIG: "/", GNUPGHOME: home, AZURE_CONFIG_DIR: path.dirname(home) },
      [],
    ],
  ])("denyRead by default also hides %s", (_name, env, expected) => {
    const defaults = DEFAULT_HIDDEN_SECRETS.map((p) => path.join(home, p.slice(2)));
    expect(effectiveSandboxSettings(undefined, undefined, FILES, env).denyRead).toEqual([
      ...defaults,
      ...expected,
    ]);
    // The user's own list replaces the whole default.
    expect(effectiveSandboxSettings({ denyRead: [] }, undefined, FILES, env).denyRead).toEqual([]);
  });

  it("hides ~/.ssh, ~/.aws and ~/.gnupg by default", () => {
    const hidden = effectiveSandboxSettings(undefined, undefined, FILES).denyRead;
    for (const dir of [".ssh", ".aws", ".gnupg"]) expect(hidden).toContain(path.join(home, dir));
  });

  it("says what a project asked for and did not get", () => {
    const notices = effectiveSandboxSettings(
      { allowWrite: ["/opt/a"] },
      { enabled: false, allowWrite: ["/etc"], allowNetwork: ["evil.example"] },
      FILES,
    ).notices;
    expect(notices).toEqual([
      expect.stringMatching(/cannot turn the OS sandbox off, so it stays on/),
      expect.stringMatching(/allowWrite "\/etc", allowNetwork "evil\.example".*can only narrow.*ignored/),
    ]);
  });

  it.each([
    [{ sandbox: { allowWrite: ["relative/dir"] } }, /sandbox\.allowWrite\.0/],
    [{ sandbox: { allowNetwork: ["http://example.com"] } }, /sandbox\.allowNetwork\.0/],
    [{ sandbox: { enabled: "yes" } }, /sandbox\.enabled/],
    [{ sandbox: { denyRead: ["secrets"] } }, /sandbox\.denyRead\.0/],
    [{ sandbox: { denyEnv: ["GH_TOKEN=x"] } }, /sandbox\.denyEnv\.0/],
    [{ sandbox: { denyEnv: ["GH TOKEN"] } }, /sandbox\.denyEnv\.0/],
    [{ sandbox: { denyEnv: [""] } }, /sandbox\.denyEnv\.0/],
    [{ sandbox: { denyEnv: "GH_TOKEN" } }, /sandbox\.denyEnv/],
    [{ sandbox: { allowEverything: true } }, /sandbox/],
  ])("refuses malformed sandbox settings %j", (settings, where) => {
    const parsed = SettingsSchema.safeParse(settings);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join(".")).join(" ")).toMatch(where);
  });

  it.each([["*_TOKEN"], ["GH-TOKEN"], ["1TOKEN"], [""]])(
    "refuses allowEnv %j of an MCP server: it names one variable exactly",
    (name) => {
      const parsed = McpServerSchema.safeParse({ command: "gh-mcp", allowEnv: [name] });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/use the name of an environment variable/);
    },
  );
});
