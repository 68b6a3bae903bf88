// What only the desktop app has, beside the shared API: the system's folder picker. The page
// uses it when present (`window.latheDesktop`) and opens the chosen folder through the same
// `project.open` channel as a typed path; in a browser (`lathe serve`) it is absent.

/** The IPC channel of the folder picker (Electron only). */
export const DESKTOP_PICK_FOLDER = "desktop.pickFolder";

export interface LatheDesktop {
  /** Show the system's folder picker; the chosen folder's path, or undefined when cancelled. */
  pickFolder(): Promise<string | undefined>;
}
