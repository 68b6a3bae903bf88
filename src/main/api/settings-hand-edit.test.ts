// Settings and trust changed outside the app while it runs (`lathe serve`, the Electron app): a
// settings file edited by hand, `lathe trust --revoke` in a terminal. Before, the app's engine kept
// what it read when it was created until a restart, while its Settings view (which reads the file
// anew) showed the new rules as if they applied.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApiResult, ProjectStatus } from "../../shared/api-contract.ts";
import type { PermissionsView } from "../../shared/permission-schemas.ts";
import { parsePushFrame, type PushFrame } from "../../shared/push-events.ts";
import { Engine, TrustStore } from "../engine/index.ts";
import { EngineHost } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";

let base: string;
let root: string;
let latheHome: string;
let engine: Engine;
let host: EngineHost;
let ui: UiConnection;
let frames: PushFrame[];

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-settings-hand-edit-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "lathe-home");
  await mkdir(root, { recursive: true });
  await mkdir(latheHome, { recursive: true });
  await writeFile(path.join(root, "secret.txt"), "s3cret\n");
});

afterEach(async () => {
  await ui?.close();
  await host?.close();
  await engine?.close();
  await rm(base, { recursive: true, force: true });
});

/** The app as `lathe serve` runs it: a host that looks for changes on its own timer. */
async function start(): Promise<void> {
  const create = (folder: string) => Engine.create({ root: folder, latheHome, extensions: false });
  engine = await create(root);
  host = new EngineHost({ engine, createEngine: create, watchIntervalMs: 50 });
  frames = [];
  ui = new UiConnection({
    host,
    send: (frame) => {
      const checked = parsePushFrame(JSON.parse(JSON.stringify(frame)));
      if (!checked.ok) throw new Error(checked.error);
      frames.push(checked.frame);
    },
  });
}

function data<T>(answer: ApiResult<unknown>): T {
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data as T;
}

const readSecret = async () =>
  data<{ type: string; error_text?: string }>(
    await ui.router.dispatch("tools.call", { toolId: "read", args: { path: "secret.txt" } }),
  );

async function until<T>(look: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await look();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const userFile = () => path.join(latheHome, "settings.json");
const denySecret = { permissions: [{ permission: "read", pattern: "secret.txt", action: "deny" }] };
const lastStatus = () =>
  frames.filter((f) => f.event === "project.status").at(-1)?.payload as ProjectStatus | undefined;

describe("settings changed outside the app while it runs", () => {
  it("applies a deny rule written into settings.json by hand to the next call, as the Settings view shows it", async () => {
    await start();
    expect((await readSecret()).type).toBe("output");

    await writeFile(userFile(), JSON.stringify(denySecret, null, 2));
    const view = data<PermissionsView>(await ui.router.dispatch("permissions.get", undefined));
    expect(view.scopes[0]?.rules).toEqual(denySecret.permissions);
    const answer = await until(readSecret, (envelope) => envelope.type === "error");
    expect(answer.type).toBe("error");
    expect(answer.error_text).toMatch(/read was denied: .*matched the user rule .*secret\.txt/);
    expect(host.current).not.toBe(engine);
  });

  it("keeps the settings it read when the edited file is broken, says so with the line, and applies the file once fixed", async () => {
    await start();
    await writeFile(
      userFile(),
      '{\n  "permissions": [\n    { "permission": "read", "pattern": "secret.txt", "action": "deny" },\n  ]\n}\n',
    );
    const status = await until(lastStatus, (s) => (s?.notices.length ?? 0) > 0);
    expect(status?.notices[0]).toMatch(
      /^Your settings changed, but Lathe cannot apply them, so it goes on with the settings it read before: .*settings\.json is not valid JSON: line 3, column 72: a comma after the last entry/,
    );
    expect(host.status().notices[0]).toBe(status?.notices[0]);
    expect(host.current).toBe(engine);

    await writeFile(userFile(), JSON.stringify(denySecret));
    expect((await until(readSecret, (envelope) => envelope.type === "error")).type).toBe("error");
    expect(host.status().notices).toEqual([]);
    expect(lastStatus()?.notices).toEqual([]);
  });

  it("takes a trust revoked in a terminal (lathe trust --revoke) away from the running app", async () => {
    await mkdir(path.join(root, ".lathe"), { recursive: true });
    await writeFile(
      path.join(root, ".lathe", "settings.json"),
      JSON.stringify({ approvals: { mode: "yolo" } }),
    );
    new TrustStore(latheHome).trust(root);
    await start();
    expect(host.status().trusted).toBe(true);
    expect(host.current.policy.mode).toBe("yolo");

    expect(new TrustStore(latheHome).revoke(root)).toBe(true);
    const status = await until(lastStatus, (s) => s?.trusted === false);
    expect(status?.trusted).toBe(false);
    expect(host.current.policy.projectTrusted).toBe(false);
    // The project's approval mode no longer applies.
    expect(host.current.policy.mode).toBeUndefined();
  });
});
