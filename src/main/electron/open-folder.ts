import { mkdir } from "node:fs/promises";

/** Electron's `shell.openPath`: resolves to "" when the folder opened, else to what went wrong. */
type PathOpener = (folder: string) => Promise<string>;

/**
 * Shows a folder in the OS's file manager, creating it first (a fresh install has no logs or
 * Lathe home yet): Lathe's own folders, so made private (0700) as Lathe makes them elsewhere. Rejects with the folder and the reason when it cannot be shown.
 */
export async function openFolder(folder: string, open: PathOpener): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const problem = await open(folder);
  if (problem !== "") throw new Error(`Lathe could not open ${folder}: ${problem}`);
}
