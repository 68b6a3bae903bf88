/**
 * A settings file's text as JSON.parse reads it: without the byte-order mark some editors
 * (Windows Notepad) put first in a UTF-8 file, which JSON.parse refuses as an invisible
 * "Unexpected token".
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
