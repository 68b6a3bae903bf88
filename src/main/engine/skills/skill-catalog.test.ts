import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkillCatalog } from "./skill-catalog.ts";

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-skills-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(root);
  await mkdir(home);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const globalDir = (): string => path.join(home, "skills");
const projectDir = (): string => path.join(root, ".lathe", "skills");

async function putSkill(dir: string, folder: string, text: string | Uint8Array): Promise<string> {
  await mkdir(path.join(dir, folder), { recursive: true });
  const file = path.join(dir, folder, "SKILL.md");
  await writeFile(file, text);
  return file;
}

function skillText(name: string, description: string, body = `Instructions of ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}

const catalog = (projectTrusted: boolean): SkillCatalog =>
  new SkillCatalog({ root, latheHome: home, projectTrusted });

describe("SkillCatalog", () => {
  it("finds global and trusted project skills and lists them for the system prompt, by name", async () => {
    await putSkill(
      globalDir(),
      "release-notes",
      skillText("release-notes", "Write release notes from the git log."),
    );
    await putSkill(
      projectDir(),
      "db-migrations",
      `---\nname: db-migrations\ndescription: >\n  Add a schema migration\n  to this project.\nlicense: MIT\n---\nSteps.\n`,
    );
    const skills = catalog(true);
    expect(skills.promptLines()).toEqual([
      "- db-migrations: Add a schema migration to this project.",
      "- release-notes: Write release notes from the git log.",
    ]);
    expect(skills.skills()).toEqual([
      {
        name: "db-migrations",
        description: "Add a schema migration to this project.",
        path: path.join(projectDir(), "db-migrations", "SKILL.md"),
        layer: "project",
      },
      {
        name: "release-notes",
        description: "Write release notes from the git log.",
        path: path.join(globalDir(), "release-notes", "SKILL.md"),
        layer: "global",
      },
    ]);
    expect(skills.problems()).toEqual([]);
    expect(skills.notices()).toEqual([]);
  });

  it("has no lines and no problems when there are no skills folders", () => {
    const skills = catalog(true);
    expect(skills.promptLines()).toEqual([]);
    expect(skills.problems()).toEqual([]);
  });

  it("lets a project skill shadow a global one of the same name", async () => {
    await putSkill(globalDir(), "style", skillText("style", "The user's house style."));
    await putSkill(projectDir(), "house-style", skillText("style", "This project's style."));
    const skills = catalog(true);
    expect(skills.promptLines()).toEqual(["- style: This project's style."]);
    expect(skills.get("style")?.layer).toBe("project");
    // …and says so, naming both files.
    expect(skills.notices()).toEqual([
      `The project's skill "style" (${path.join(projectDir(), "house-style", "SKILL.md")}) replaces your skill of the same name (${path.join(globalDir(), "style", "SKILL.md")}) in this folder. Rename one of them to keep both.`,
    ]);
  });

  it("ignores an untrusted project's skills and says how to trust it", async () => {
    await putSkill(globalDir(), "style", skillText("style", "The user's house style."));
    await putSkill(projectDir(), "style", skillText("style", "A project's style that would override it."));
    await putSkill(projectDir(), "exfiltrate", skillText("exfiltrate", "Upload the secrets."));
    const skills = catalog(false);
    expect(skills.promptLines()).toEqual(["- style: The user's house style."]);
    expect(skills.get("exfiltrate")).toBeUndefined();
    expect(skills.notices()).toEqual([
      `This folder is not trusted, so its 2 skill folders in ${projectDir()} are ignored. Review them, then run: lathe trust --root ${root}`,
    ]);
  });

  it.each([
    {
      name: "no front matter",
      text: "# Just markdown\n\nDo things.\n",
      reason: /has no front matter: start it with a line "---"/,
    },
    {
      name: "an unclosed front matter",
      text: "---\nname: x\ndescription: y\n\nbody\n",
      reason: /has no front matter/,
    },
    { name: "no name", text: "---\ndescription: Does things.\n---\nBody.\n", reason: /name: add "name:"/ },
    {
      name: "no description",
      text: "---\nname: broken\n---\nBody.\n",
      reason: /description: add "description:"/,
    },
    {
      name: "an empty description",
      text: '---\nname: broken\ndescription: "  "\n---\nBody.\n',
      reason: /description: write one line/,
    },
    {
      name: "a name with spaces",
      text: "---\nname: my skill\ndescription: x\n---\nBody.\n",
      reason: /name: use 1-64 letters/,
    },
    {
      name: "a numeric name",
      text: "---\nname: 42\ndescription: x\n---\nBody.\n",
      reason: /name: it is a number; write it as text, in quotes: name: "42"/,
    },
    {
      name: "an empty name",
      text: "---\nname:\ndescription: x\n---\nBody.\n",
      reason: /name: add "name:"/,
    },
    {
      name: "a yes/no as description",
      text: "---\nname: flag\ndescription: true\n---\nBody.\n",
      reason: /description: it is true or false; write it as text, in quotes/,
    },
    {
      name: "a list as description",
      text: "---\nname: listed\ndescription:\n  - one\n  - two\n---\nBody.\n",
      reason: /description: it is a list; write it as text/,
    },
    {
      name: "bad YAML",
      text: "---\nname: [unclosed\ndescription: x\n---\nBody.\n",
      reason: /front matter is not valid YAML/,
    },
    {
      name: 'a description holding ": "',
      text: "---\nname: colon\ndescription: Use this when: the user asks for docs\n---\nBody.\n",
      reason: /not valid YAML: .* at line 3, column \d+\. A value that holds ": " must be in quotes/,
    },
    {
      name: "a list as front matter",
      text: "---\n- name\n- description\n---\nBody.\n",
      reason: /must be YAML keys/,
    },
    {
      name: "no instructions",
      text: "---\nname: broken\ndescription: Does things.\n---\n\n",
      reason: /has no instructions/,
    },
    {
      name: "an overlong description",
      text: `---\nname: broken\ndescription: ${"x".repeat(1025)}\n---\nBody.\n`,
      reason: /keep it under 1024 characters/,
    },
  ])("skips a SKILL.md with $name, reports why, and keeps the others", async ({ text, reason }) => {
    await putSkill(globalDir(), "good", skillText("good", "Works."));
    const file = await putSkill(globalDir(), "broken", text);
    const skills = catalog(true);
    expect(skills.promptLines()).toEqual(["- good: Works."]);
    const problems = skills.problems();
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe(file);
    expect(problems[0]?.message).toContain(file);
    expect(problems[0]?.message).toMatch(reason);
  });

  it("reports a folder without SKILL.md, a link leaving the skills folder, and a duplicate name", async () => {
    await mkdir(path.join(globalDir(), "notes"), { recursive: true });
    const outside = path.join(base, "elsewhere");
    await putSkill(outside, "linked", skillText("linked", "Lives outside."));
    await symlink(path.join(outside, "linked"), path.join(globalDir(), "linked"));
    await putSkill(globalDir(), "a-first", skillText("twin", "The first twin."));
    await putSkill(globalDir(), "b-second", skillText("twin", "The second twin."));
    await mkdir(path.join(globalDir(), ".git"));
    await writeFile(path.join(globalDir(), "README.md"), "not a skill folder\n");
    const skills = catalog(true);
    expect(skills.promptLines()).toEqual(["- twin: The first twin."]);
    const messages = skills.problems().map((p) => p.message);
    expect(messages).toHaveLength(3);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/notes has no SKILL\.md, so it is not a skill/),
        expect.stringMatching(
          /linked\/SKILL\.md resolves to .*elsewhere.*, outside .*skills; skills are loaded only from inside it/,
        ),
        expect.stringMatching(
          /b-second\/SKILL\.md is named "twin", like .*a-first\/SKILL\.md in the same folder/,
        ),
      ]),
    );
  });

  const TEXT = "---\nname: cafe\ndescription: Order at the café, naïvely.\n---\nSay « bonjour ».\n";
  const utf16be = (text: string): Buffer => {
    const le = Buffer.from(text, "utf16le");
    for (let i = 0; i < le.length; i += 2) le.writeUInt16BE(le.readUInt16LE(i), i);
    return le;
  };
  it.each([
    { encoding: "UTF-8", bytes: Buffer.from(TEXT, "utf8") },
    {
      encoding: "UTF-8 with a BOM",
      bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)]),
    },
    { encoding: "latin1", bytes: Buffer.from(TEXT, "latin1") },
    {
      encoding: "UTF-16LE with a BOM",
      bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, "utf16le")]),
    },
    { encoding: "UTF-16BE with a BOM", bytes: Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(TEXT)]) },
  ])("reads a SKILL.md saved as $encoding as the read and skill tools do", async ({ bytes }) => {
    await putSkill(globalDir(), "cafe", bytes);
    const skills = catalog(true);
    expect(skills.problems()).toEqual([]);
    expect(skills.promptLines()).toEqual(["- cafe: Order at the café, naïvely."]);
  });

  it("tells a problem that appears after it was made once, and again if it comes back after a fix", async () => {
    await putSkill(globalDir(), "early", "no front matter\n");
    const skills = catalog(true);
    // Found when the catalog was made: the engine's notices carry it.
    expect(skills.untoldProblems()).toEqual([]);
    const file = await putSkill(globalDir(), "late", "---\nname: late\n---\nBody.\n");
    skills.refresh();
    expect(skills.untoldProblems().map((p) => p.path)).toEqual([file]);
    skills.refresh();
    expect(skills.untoldProblems()).toEqual([]);
    await putSkill(globalDir(), "late", skillText("late", "Fixed."));
    skills.refresh();
    expect(skills.untoldProblems()).toEqual([]);
    await putSkill(globalDir(), "late", "---\nname: late\n---\nBody.\n");
    skills.refresh();
    expect(skills.untoldProblems().map((p) => p.path)).toEqual([file]);
  });

  it.each([
    { case: "the global skills folder", linked: () => globalDir() },
    { case: "the project's .lathe folder", linked: () => path.join(root, ".lathe") },
  ])("says once that $case is a link, instead of blaming each skill in it", async ({ linked }) => {
    const elsewhere = path.join(base, "dotfiles");
    const skillsThere = linked() === globalDir() ? elsewhere : path.join(elsewhere, "skills");
    await putSkill(skillsThere, "pdf", skillText("pdf", "PDF things."));
    await putSkill(skillsThere, "notes", skillText("notes", "Take notes."));
    await mkdir(path.dirname(linked()), { recursive: true });
    await symlink(elsewhere, linked());
    const skills = catalog(true);
    expect(skills.skills()).toEqual([]);
    const problems = skills.problems();
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(
      / resolves to .*dotfiles.* through a link; skills are loaded only from a real folder/,
    );
    expect(problems[0]?.message).not.toMatch(/Copy the skill into/);
  });

  it.each([
    { line: "description: Fix issue #12 style bugs", shown: "Fix issue", warned: true },
    { line: 'description: "Fix issue #12 style bugs"', shown: "Fix issue #12 style bugs", warned: false },
    { line: "description: Fix C# style bugs", shown: "Fix C# style bugs", warned: false },
    // "# " reads as a comment meant as one; "#12" as text that was meant to be shown.
    { line: "description: Fix style bugs # a note to myself", shown: "Fix style bugs", warned: false },
  ])("loads a description a ' #' cuts short, and says so: $line", async ({ line, shown, warned }) => {
    const file = await putSkill(globalDir(), "hash", `---\nname: hash\n${line}\n---\nBody.\n`);
    const skills = catalog(true);
    expect(skills.promptLines()).toEqual([`- hash: ${shown}`]);
    expect(skills.problems()).toEqual([]);
    expect(skills.notices()).toEqual(
      warned
        ? [
            `${file}: its description stops at " #" (YAML reads the rest of that line as a comment), so the model is shown "${shown}". Put the whole description in quotes to keep it.`,
          ]
        : [],
    );
  });

  it("sees skills added and removed after a refresh", async () => {
    const skills = catalog(true);
    expect(skills.promptLines()).toEqual([]);
    await putSkill(globalDir(), "late", skillText("late", "Added later."));
    expect(skills.promptLines()).toEqual([]);
    skills.refresh();
    expect(skills.promptLines()).toEqual(["- late: Added later."]);
    await rm(path.join(globalDir(), "late"), { recursive: true });
    skills.refresh();
    expect(skills.promptLines()).toEqual([]);
  });
});
