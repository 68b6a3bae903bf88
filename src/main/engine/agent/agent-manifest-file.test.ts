// Agent manifests a cloned folder may hold in .lathe/agents/ that are no manifest at all: a link to
// /dev/zero (read as a file, it grew to 3 GB in 20 s and `lathe trust --dry-run`, the review a
// person runs before trusting, never answered), a named pipe (read waits forever for a writer).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectGrantsFingerprint } from "../config/project-settings-grants.ts";
import { describeTrustReview } from "../extensions/trust-review.ts";
import { loadAgentCatalog } from "./agent-catalog.ts";

let base: string;
let root: string;
let home: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lathe-agent-file-")));
  root = path.join(base, "project");
  home = path.join(base, "home");
  mkdirSync(path.join(root, ".lathe", "agents"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(
    path.join(root, ".lathe", "agents", "reviewer.md"),
    "---\ndescription: Reviews changes\n---\nReview the diff.\n",
  );
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

describe.each([
  [
    // Refused for where it leads, before anything reads it.
    "a link to /dev/zero",
    (file: string) => symlinkSync("/dev/zero", file),
    /is a link to \/dev\/zero, which leads outside the project folder/,
  ],
  [
    "a link to a named pipe inside the project",
    (file: string) => {
      execFileSync("mkfifo", [path.join(root, "pipe")]);
      symlinkSync("../../pipe", file);
    },
    /is not a plain file \(a device, a pipe or a socket, or a link to one\)/,
  ],
  ["a named pipe", (file: string) => execFileSync("mkfifo", [file]), /is not a plain file/],
  [
    "a manifest of 2 MB",
    (file: string) => writeFileSync(file, `---\ndescription: big\n---\n${"x".repeat(2 * 1024 * 1024)}`),
    /is 2\.0 MB, more than an agent manifest may be \(1\.0 MB\): shorten it/,
  ],
])("an agent manifest that is %s", (name, stage, problem) => {
  beforeEach(() => stage(path.join(root, ".lathe", "agents", "evil.md")));

  it("is named as not loading in the trust review, at once", async () => {
    const review = await describeTrustReview(root, home);
    const evil = review.agents.find((line) => line.startsWith("evil.md"));
    expect(evil).toMatch(problem);
    expect(review.agents.some((line) => line.startsWith("reviewer"))).toBe(true);
  });

  it("does not load in a trusted folder's catalog, the other agents loading", async () => {
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: true });
    expect(catalog.agents().map((a) => a.id)).toContain("reviewer");
    // The catalog says why, as the review does.
    expect(() => catalog.get("evil")).toThrow(problem);
  });

  it("leaves the folder's grants unreadable, so it cannot count as what a person trusted (a link refused unread counts as refused)", () => {
    if (name.includes("/dev/zero")) expect(projectGrantsFingerprint(root)).toBeDefined();
    else expect(projectGrantsFingerprint(root)).toBeUndefined();
  });
});
