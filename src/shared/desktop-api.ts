// What only the desktop app has, beside the shared API: the system's folder and file pickers. The
// page uses them when present (`window.latheDesktop`) and sends the chosen path through the same
// channels as a typed one (`project.open`, `models.addGguf`); in a browser (`lathe serve`) they
// are absent and the page asks for a path.

/** The IPC channel of the folder picker (Electron only). */
export const DESKTOP_PICK_FOLDER = "desktop.pickFolder";
/** The IPC channel of the GGUF file picker (Electron only). */
export const DESKTOP_PICK_GGUF = "desktop.pickGguf";

export interface LatheDesktop {
  /** Show the system's folder picker; the chosen folder's path, or undefined when cancelled. */
  pickFolder(): Promise<string | undefined>;
  /** Show the system's file picker for a .gguf model; its path, or undefined when cancelled. */
  pickGguf(): Promise<string | undefined>;
}
