/** What the file systems allow: a whole path (PATH_MAX, less its NUL) and one name (NAME_MAX), in bytes. */
export const MAX_PATH_BYTES = process.platform === "darwin" ? 1023 : 4095;
export const MAX_NAME_BYTES = 255;
