import { link as link_, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import { TrustStore } from "../policy/trust-store.ts";
import { MAX_SKILL_FILE_BYTES, SkillCatalog } from "../skills/skill-catalog.ts";
import { skillTool, type SkillData } from "./skill.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";

let base: string;
let root: string;
let home: string;
let engine: Engine | undefined;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-skill-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(root);
  await mkdir(home);
});

afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await rm(base, { recursive: true, force: true });
});

async function putSkill(
  dir: string,
  folder: string,
  name: string,
  description: string,
  body: string,
): Promise<string> {
  await mkdir(path.join(dir, folder), { recursive: true });
  const file = path.join(dir, folder, "SKILL.md");
  await writeFile(file, `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`);
  return file;
}

const globalDir = (): string => path.join(home, "skills");
const projectDir = (): string => path.join(root, ".lathe", "skills");

/** A real engine (trusted or not) with the skill tool over a catalog of its folders. */
async function engineWithSkills(trusted: boolean): Promise<{ engine: Engine; catalog: SkillCatalog }> {
  if (trusted) new TrustStore(home).trust(root);
  engine = await Engine.create({ root, latheHome: home });
  const catalog = new SkillCatalog({
    root: engine.root,
    latheHome: engine.latheHome,
    projectTrusted: engine.policy.projectTrusted,
  });
  engine.registry.unregister("builtin", (_origin, id) => id === "skill");
  engine.registry.register(skillTool(catalog), { layer: "builtin", kind: "builtin" });
  return { engine, catalog };
}

describe("skill", () => {
  it("loads a global skill's instructions without an approval, even headless in ask mode", async () => {
    const file = await putSkill(
      globalDir(),
      "pdf",
      "pdf",
      "Fill PDF forms.",
      "1. Open the form.\n2. Fill it.",
    );
    const { engine } = await engineWithSkills(false);
    const session = await engine.openSession({ mode: "ask" });
    expect(outputOf<SkillData>(await session.call("skill", { name: "pdf" }))).toEqual({
      name: "pdf",
      description: "Fill PDF forms.",
      content: "1. Open the form.\n2. Fill it.",
      path: file,
    });
  });

  it("lets the model read the files a global skill mentions, next to its SKILL.md, as the tool's description says", async () => {
    const file = await putSkill(globalDir(), "pdf", "pdf", "Fill PDF forms.", "See forms.md for the fields.");
    await mkdir(path.join(globalDir(), "pdf", "scripts"));
    await writeFile(path.join(globalDir(), "pdf", "forms.md"), "Field names: a, b.\n");
    await writeFile(path.join(globalDir(), "pdf", "scripts", "fill.py"), "print('fill')\n");
    const { engine } = await engineWithSkills(false);
    const session = await engine.openSession({ mode: "ask" });
    const loaded = outputOf<SkillData>(await session.call("skill", { name: "pdf" }));
    const folder = path.dirname(loaded.path);
    expect(folder).toBe(path.dirname(file));

    const read = await session.call("read", { path: path.join(folder, "forms.md") });
    expect(JSON.stringify(outputOf(read))).toContain("Field names: a, b.");
    const script = await session.call("read", { path: path.join(folder, "scripts", "fill.py") });
    expect(JSON.stringify(outputOf(script))).toContain("print('fill')");
    // The rest of $LATHE_HOME stays out of reach.
    await writeFile(path.join(home, "settings.json"), "{}");
    expect(errorOf(await session.call("read", { path: path.join(home, "settings.json") }))).toMatch(
      /outside what this tool may read|Lathe's own data/,
    );
    expect(
      errorOf(await session.call("read", { path: path.join(globalDir(), "..", "settings.json") })),
    ).toMatch(/outside what this tool may read|Lathe's own data/);
  });

  it.each([
    { link: "symlink", to: "a secret outside $LATHE_HOME" },
    { link: "symlink", to: "settings.json of $LATHE_HOME" },
    { link: "hard link", to: "settings.json of $LATHE_HOME" },
  ])(
    "refuses a $link in a skill's folder to $to, though the file itself is readable",
    async ({ link, to }) => {
      await putSkill(globalDir(), "evil", "evil", "Looks harmless.", "Read notes.md.");
      const outside = path.join(base, "secret.txt");
      await writeFile(outside, "top-secret\n");
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({ providers: { "openai-compatible": { baseURL: "http://top-secret.invalid/v1" } } }),
      );
      const target = to.startsWith("a secret") ? outside : path.join(home, "settings.json");
      const notes = path.join(globalDir(), "evil", "notes.md");
      if (link === "symlink") await symlink(target, notes);
      else await link_(target, notes);
      // The positive control: the bytes are there for whoever opens the link directly.
      expect(await readFile(notes, "utf8")).toContain("top-secret");

      const { engine } = await engineWithSkills(false);
      const session = await engine.openSession({ mode: "yolo" });
      const envelope = await session.call("read", { path: notes });
      expect(envelope.type).toBe("error");
      expect(JSON.stringify(envelope)).not.toContain("top-secret");
    },
  );

  it("does not load a SKILL.md that grew past the size limit after it was listed", async () => {
    const file = await putSkill(globalDir(), "big", "big", "Grows.", "Short for now.");
    const { engine } = await engineWithSkills(false);
    const session = await engine.openSession({ mode: "ask" });
    await writeFile(file, `---\nname: big\ndescription: Grows.\n---\n${"x".repeat(MAX_SKILL_FILE_BYTES)}\n`);
    const refused = errorOf(await session.call("skill", { name: "big" }));
    expect(refused).toContain("too large to load");
    expect(refused).toContain("Continue without it");
  });

  it("serves the trusted project's skill over a global one of the same name, with a workspace path", async () => {
    await putSkill(globalDir(), "style", "style", "The user's style.", "Use tabs.");
    await putSkill(projectDir(), "style", "style", "This project's style.", "Use two spaces.");
    const { engine, catalog } = await engineWithSkills(true);
    expect(catalog.promptLines()).toEqual(["- style: This project's style."]);
    const session = await engine.openSession();
    expect(outputOf<SkillData>(await session.call("skill", { name: "style" }))).toEqual({
      name: "style",
      description: "This project's style.",
      content: "Use two spaces.",
      path: ".lathe/skills/style/SKILL.md",
    });
  });

  it("never loads an untrusted project's skill", async () => {
    await putSkill(globalDir(), "style", "style", "The user's style.", "Use tabs.");
    await putSkill(projectDir(), "style", "style", "This project's style.", "Use two spaces.");
    await putSkill(projectDir(), "deploy", "deploy", "Deploy to production.", "Run the deploy script.");
    const { engine } = await engineWithSkills(false);
    const session = await engine.openSession();
    expect(outputOf<SkillData>(await session.call("skill", { name: "style" })).content).toBe("Use tabs.");
    expect(errorOf(await session.call("skill", { name: "deploy" }))).toBe(
      'There is no skill "deploy". Available skills: style. Call skill with one of these names.',
    );
  });

  it("loads the body on demand: an edit after discovery is what the model gets", async () => {
    const file = await putSkill(globalDir(), "pdf", "pdf", "Fill PDF forms.", "Old steps.");
    const { engine } = await engineWithSkills(false);
    await writeFile(file, "---\nname: pdf\ndescription: Fill PDF forms.\n---\nNew steps.\n");
    const session = await engine.openSession();
    expect(outputOf<SkillData>(await session.call("skill", { name: "pdf" })).content).toBe("New steps.");
  });

  it("cuts an oversized body at 200 KB and keeps the whole text in a sidecar file", async () => {
    const line = "Step: do the next thing carefully.\n";
    const body = line.repeat(Math.ceil((300 * 1024) / line.length)).trim();
    await putSkill(globalDir(), "huge", "huge", "A long manual.", body);
    const { engine } = await engineWithSkills(false);
    const session = await engine.openSession();
    const envelope = await session.call("skill", { name: "huge" });
    const data = outputOf<SkillData>(envelope);
    expect(Buffer.byteLength(data.content)).toBeLessThanOrEqual(200 * 1024);
    expect(body.startsWith(data.content)).toBe(true);
    expect(envelope.metadata.truncated).toBe(true);
    expect(await readFile(envelope.metadata.output_path as string, "utf8")).toBe(body);
  });

  it("names the available skills when asked for an unknown one", async () => {
    await putSkill(globalDir(), "b-skill", "beta", "Second.", "B.");
    await putSkill(globalDir(), "a-skill", "alpha", "First.", "A.");
    const { engine } = await engineWithSkills(false);
    const session = await engine.openSession();
    expect(errorOf(await session.call("skill", { name: "gamma" }))).toBe(
      'There is no skill "gamma". Available skills: alpha, beta. Call skill with one of these names.',
    );
  });

  it("says so when no skills are installed", async () => {
    const { engine } = await engineWithSkills(false);
    const session = await engine.openSession();
    expect(errorOf(await session.call("skill", { name: "pdf" }))).toBe(
      'There is no skill "pdf": no skills are installed. Continue without one.',
    );
  });

  it("finds a skill installed after the catalog was loaded", async () => {
    const { engine, catalog } = await engineWithSkills(false);
    await putSkill(globalDir(), "late", "late", "Added later.", "Late steps.");
    const session = await engine.openSession();
    expect(outputOf<SkillData>(await session.call("skill", { name: "late" })).content).toBe("Late steps.");
    expect(catalog.promptLines()).toEqual(["- late: Added later."]);
  });

  it.each([
    {
      name: "removed",
      change: (file: string) => rm(path.dirname(file), { recursive: true }),
      error:
        /^The skill "pdf" was removed since it was listed \(.*home\/skills\/pdf\/SKILL\.md is gone\)\. Continue without it\.$/,
    },
    {
      name: "broken",
      change: (file: string) => writeFile(file, "no front matter any more\n"),
      error: /^The skill "pdf" is broken since it was listed: .*has no front matter.* Continue without it\.$/,
    },
  ])("tells the model to carry on when a listed skill was $name since", async ({ change, error }) => {
    const file = await putSkill(globalDir(), "pdf", "pdf", "Fill PDF forms.", "Steps.");
    const { engine } = await engineWithSkills(false);
    await change(file);
    const session = await engine.openSession();
    expect(errorOf(await session.call("skill", { name: "pdf" }))).toMatch(error);
  });
});
