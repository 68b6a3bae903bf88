// The release workflow, checked offline: it cannot run here (GitHub's runners, Electron's binary),
// so what a reader would check by eye is asserted: the trigger, the three runners on Node 24, the
// order build → package → smoke test → upload, the smoke test on every OS, and signing that
// tolerates missing secrets.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SMOKE_TEST_FLAG } from "../src/main/electron/smoke-test.ts";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  shell?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  "timeout-minutes"?: number;
}
interface Job {
  needs?: string | string[];
  "runs-on": string;
  strategy?: { "fail-fast"?: boolean; matrix: { include: { os: string; platform: string }[] } };
  defaults?: { run?: { shell?: string } };
  steps: Step[];
}
interface Workflow {
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}

const repo = path.resolve(import.meta.dirname, "..");
const workflow = parse(readFileSync(path.join(repo, ".github/workflows/release.yml"), "utf8")) as Workflow;
const build = workflow.jobs["build"];
if (!build) throw new Error("release.yml has no build job");
const steps = build.steps;

function indexOf(predicate: (step: Step) => boolean, what: string): number {
  const index = steps.findIndex(predicate);
  if (index < 0) throw new Error(`release.yml's build job has no step that ${what}`);
  return index;
}
const runs = (pattern: RegExp) => (step: Step) => pattern.test(step.run ?? "");
const smokeSteps = steps.filter((step) => (step.run ?? "").includes(SMOKE_TEST_FLAG));

describe(".github/workflows/release.yml", () => {
  it("runs on v* tags and may write the release", () => {
    expect(workflow.on.push.tags).toEqual(["v*"]);
    expect(workflow.permissions["contents"]).toBe("write");
  });

  it("builds on Ubuntu, macOS and Windows with Node 24, each platform to the end", () => {
    expect(build.strategy?.matrix.include.map((entry) => entry.os).sort()).toEqual([
      "macos-latest",
      "ubuntu-latest",
      "windows-latest",
    ]);
    expect(build.strategy?.["fail-fast"]).toBe(false);
    const setupNode = steps.find((step) => step.uses?.startsWith("actions/setup-node@"));
    expect(setupNode?.with?.["node-version"]).toBe(24);
  });

  it("installs, builds, packages, smoke-tests and only then uploads to the release", () => {
    const install = indexOf(runs(/^npm install\b/m), "runs npm install");
    const buildApp = indexOf(runs(/^npm run build$/m), "runs npm run build");
    const pack = indexOf(runs(/npx electron-builder\b/), "runs electron-builder");
    const upload = indexOf(runs(/gh release upload/), "uploads to the release");
    expect(install).toBeLessThan(buildApp);
    expect(buildApp).toBeLessThan(pack);
    expect(smokeSteps.length).toBeGreaterThan(0);
    for (const smoke of smokeSteps) {
      const at = steps.indexOf(smoke);
      expect(at).toBeGreaterThan(pack);
      expect(at).toBeLessThan(upload);
    }
    // electron-builder itself never uploads: the smoke test decides.
    const packaging = steps[pack]?.run ?? "";
    expect(packaging).toMatch(/--config build\/electron-builder\.yml/);
    expect(packaging).toMatch(/--publish never/);
    expect(packaging).toMatch(/"--\$\{\{ matrix\.platform \}\}"/);
  });

  it("launches the packaged app in smoke mode on every OS, from what users install", () => {
    const byOs = (os: string) => smokeSteps.filter((step) => step.if === `runner.os == '${os}'`);
    const linux = byOs("Linux");
    const mac = byOs("macOS");
    const windows = byOs("Windows");
    expect([linux.length, mac.length, windows.length]).toEqual([1, 1, 1]);

    const linuxRun = linux[0]?.run ?? "";
    expect(linuxRun).toMatch(/apt-get install -y[^\n]*\.\/dist\/\*\.deb/);
    expect(linuxRun).toMatch(/xvfb-run [^\n]*\/opt\/Lathe\/lathe --smoke-test/);
    expect(linuxRun).toMatch(/xvfb-run [^\n]*AppImage|xvfb-run [^\n]*appimage/);
    // The sandbox stays on: the runner's user-namespace restriction is lifted instead.
    expect(linuxRun).not.toMatch(/--no-sandbox/);
    expect(linuxRun).toMatch(/apparmor_restrict_unprivileged_userns=0/);

    expect(mac[0]?.run).toMatch(/hdiutil attach/);
    expect(mac[0]?.run).toMatch(/Lathe\.app\/Contents\/MacOS\/Lathe" --smoke-test/);
    expect(mac[0]?.run).toMatch(/exit "\$status"/);

    expect(windows[0]?.shell).toBe("pwsh");
    expect(windows[0]?.run).toMatch(/"\/S"/);
    expect(windows[0]?.run).toMatch(/Lathe\.exe"\) --smoke-test/);
    expect(windows[0]?.run).toMatch(/exit \$LASTEXITCODE/);

    for (const smoke of smokeSteps) expect(smoke["timeout-minutes"]).toBeGreaterThan(0);
    // bash steps stop at the first failing command (GitHub runs them with -e), pwsh checks by hand.
    expect(build.defaults?.run?.shell).toBe("bash");
  });

  it("signs only with secrets that exist, falling back to an ad hoc macOS signature", () => {
    const pack = steps.find(runs(/npx electron-builder\b/));
    const script = pack?.run ?? "";
    expect(script).toMatch(/if \[\[ -n "\$MAC_CSC_LINK" \]\]/);
    expect(script).toMatch(/-c\.mac\.identity=-/);
    expect(script).toMatch(/if \[\[ -n "\$WIN_CSC_LINK" \]\]/);
    for (const value of Object.values(pack?.env ?? {}))
      expect(value).toMatch(/^\$\{\{ secrets\.[A-Z_]+ \}\}$/);
  });

  it("publishes the draft only after every platform passed", () => {
    const draft = workflow.jobs["draft"];
    const publish = workflow.jobs["publish"];
    expect(draft?.steps.some((step) => /gh release create [^\n]*--draft/.test(step.run ?? ""))).toBe(true);
    expect(build.needs).toBe("draft");
    expect(publish?.needs).toBe("build");
    expect(publish?.steps.some((step) => /gh release edit [^\n]*--draft=false/.test(step.run ?? ""))).toBe(
      true,
    );
  });
});
