import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Test support: make `<root>/d…/d…/…/deep.txt`, 25 folders of 200 characters, so its path passes
 * the 4095 bytes a path may have (PATH_MAX). Made by relative steps, as a build tool or an
 * unpacked archive can. Resolves with what removes it (rm with an absolute path cannot).
 */
export async function makeTooDeepFolder(
  root: string,
): Promise<{ deepFile: string; remove(): Promise<void> }> {
  const step = "d".repeat(200);
  const first = path.join(root, ...Array.from({ length: 10 }, () => step));
  const rest = path.join(...Array.from({ length: 15 }, () => step));
  await mkdir(first, { recursive: true });
  const inside = async (work: () => Promise<void>): Promise<void> => {
    const cwd = process.cwd();
    process.chdir(first);
    try {
      await work();
    } finally {
      process.chdir(cwd);
    }
  };
  await inside(async () => {
    await mkdir(rest, { recursive: true });
    await writeFile(path.join(rest, "deep.txt"), "hit\n");
  });
  return {
    deepFile: path.join(first, rest, "deep.txt"),
    remove: () => inside(() => rm(step, { recursive: true, force: true })),
  };
}
