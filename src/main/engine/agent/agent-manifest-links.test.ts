// A project's .lathe/agents/ may hold links. The trust review listed a linked manifest (it reads
// names) while the catalog runs load skipped it (it kept plain files only), so what a person
// reviewed was not what ran. One rule now for both: a link whose target is inside the project
// counts; one that leads out of it is refused, saying why, and its target is not read.
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
let agents: string;
const manifest = (description: string) =>
  `---\ndescription: ${description}\npermissions:\n  - { permission: bash, pattern: "*", action: allow }\n---\nDo it.\n`;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lathe-agent-links-")));
  root = path.join(base, "project");
  home = path.join(base, "home");
  agents = path.join(root, ".lathe", "agents");
  mkdirSync(agents, { recursive: true });
  mkdirSync(path.join(root, "docs"));
  mkdirSync(path.join(base, "elsewhere"));
  mkdirSync(home);
  writeFileSync(path.join(root, "docs", "shared.md"), manifest("Shared within the project"));
  writeFileSync(path.join(base, "elsewhere", "outside.md"), manifest("Lives outside the project"));
  symlinkSync("../../docs/shared.md", path.join(agents, "shared.md"));
  symlinkSync(path.join(base, "elsewhere", "outside.md"), path.join(agents, "outside.md"));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("linked agent manifests in a project", () => {
  it("a link that stays inside the project loads in the catalog and is listed as loading in the review", async () => {
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: true });
    expect(catalog.get("shared").description).toBe("Shared within the project");
    const review = await describeTrustReview(root, home);
    expect(review.agents.find((line) => line.startsWith("shared"))).toMatch(
      /^shared \(shared\.md\); rules: allow bash/,
    );
  });

  it("a link that leads outside is refused by both, saying why, and its target is not loaded", async () => {
    const why = new RegExp(
      `outside\\.md is a link to ${path.join(base, "elsewhere", "outside.md").replaceAll("/", "\\/")}, which leads outside the project folder ${root.replaceAll("/", "\\/")}`,
    );
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: true });
    expect(catalog.agents().map((a) => a.id)).not.toContain("outside");
    expect(() => catalog.get("outside")).toThrow(why);
    expect(catalog.problems().map((p) => p.message)).toEqual([expect.stringMatching(why)]);
    const review = await describeTrustReview(root, home);
    expect(review.agents.find((line) => line.startsWith("outside.md"))).toMatch(
      /: will not load \(.*leads outside the project folder/,
    );
    // Positive control: the same file copied in (not linked) is an agent both load.
    rmSync(path.join(agents, "outside.md"));
    writeFileSync(path.join(agents, "outside.md"), manifest("Lives outside the project"));
    expect((await loadAgentCatalog({ root, latheHome: home, projectTrusted: true })).get("outside").id).toBe(
      "outside",
    );
    expect(
      (await describeTrustReview(root, home)).agents.some((l) => l.startsWith("outside (outside.md)")),
    ).toBe(true);
  });

  it("what the outside link leads to does not change what a person trusted", () => {
    const before = projectGrantsFingerprint(root);
    expect(before).toBeDefined();
    writeFileSync(path.join(base, "elsewhere", "outside.md"), manifest("Changed outside"));
    expect(projectGrantsFingerprint(root)).toBe(before);
    writeFileSync(path.join(root, "docs", "shared.md"), manifest("Changed inside"));
    expect(projectGrantsFingerprint(root)).not.toBe(before);
  });

  it("a link in the user's own agents folder loads wherever it leads", async () => {
    mkdirSync(path.join(home, "agents"));
    symlinkSync(path.join(base, "elsewhere", "outside.md"), path.join(home, "agents", "mine.md"));
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: false });
    expect(catalog.get("mine").description).toBe("Lives outside the project");
  });

  // A relative gguf: path was read against the folder of the link, not of the file it leads to:
  // an agent kept with its model in a dotfiles checkout and linked into ~/.lathe/agents/ looked
  // for ~/.lathe/agents/models/q.gguf ("No GGUF file"), and named another model through each link.
  it("reads a linked manifest's relative gguf: path against the folder the file really is in", async () => {
    const dotfiles = path.join(base, "dotfiles", "lathe");
    mkdirSync(path.join(dotfiles, "models"), { recursive: true });
    writeFileSync(path.join(dotfiles, "models", "q.gguf"), "GGUF");
    writeFileSync(
      path.join(dotfiles, "local.md"),
      "---\ndescription: Local\nmodel: gguf:models/q.gguf\n---\nGo.\n",
    );
    mkdirSync(path.join(home, "agents"));
    symlinkSync(path.join(dotfiles, "local.md"), path.join(home, "agents", "local.md"));
    // In a project too, through a link that stays inside it.
    mkdirSync(path.join(root, "docs", "models"));
    writeFileSync(
      path.join(root, "docs", "local-p.md"),
      "---\ndescription: Project local\nmodel: gguf:models/p.gguf\n---\nGo.\n",
    );
    symlinkSync("../../docs/local-p.md", path.join(agents, "local-p.md"));
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: true });
    expect(catalog.get("local").model).toBe(`gguf:${path.join(dotfiles, "models", "q.gguf")}`);
    expect(catalog.get("local-p").model).toBe(`gguf:${path.join(root, "docs", "models", "p.gguf")}`);
  });
});
