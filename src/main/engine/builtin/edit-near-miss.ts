/** Whitespace runs as one space, ends trimmed: how a line reads when only its spacing differs. */
function spacing(line: string): string {
  return line.replace(/\s+/g, " ").trim();
}

/** What the file's line uses to indent where old_string's line does otherwise, if that is the difference. */
function indentDifference(fileLine: string, oldLine: string): string | undefined {
  const fileIndent = /^[ \t]*/.exec(fileLine)?.[0] ?? "";
  const oldIndent = /^[ \t]*/.exec(oldLine)?.[0] ?? "";
  if (fileIndent === oldIndent) return undefined;
  if (fileIndent.includes("\t") && !oldIndent.includes("\t")) return "indents with tabs, not spaces";
  if (!fileIndent.includes("\t") && oldIndent.includes("\t")) return "indents with spaces, not tabs";
  return `is indented by ${fileIndent.length} characters, not ${oldIndent.length}`;
}

/**
 * The first line (1-based) where the old text's lines occur in the file's once spacing is set
 * aside: its first and last lines may be parts of lines, the ones between whole lines.
 */
function matchIgnoringSpacing(fileLines: readonly string[], oldLines: readonly string[]): number | undefined {
  const wanted = oldLines.map(spacing);
  const last = wanted.length - 1;
  if (wanted.every((w) => w === "")) return undefined;
  for (let i = 0; i + last < fileLines.length; i++) {
    let ok = true;
    for (let j = 0; j <= last && ok; j++) {
      const have = spacing(fileLines[i + j] as string);
      const want = wanted[j] as string;
      ok =
        last === 0
          ? have.includes(want)
          : j === 0
            ? have.endsWith(want)
            : j === last
              ? have.startsWith(want)
              : have === want;
    }
    if (ok) return i + 1;
  }
  return undefined;
}

/**
 * Why old_string, found nowhere in the text as it is, was probably meant to match: the same
 * letters written in another Unicode form (é as one character or as e plus an accent), the same
 * text with carriage returns elsewhere (a line's \r copied without its \n, or line breaks written
 * otherwise than in a file of mixed endings), or the same text spaced otherwise (tabs for spaces,
 * another indentation). Undefined when none. `mixedEndings`: the text is the file's own, with
 * both LF and CRLF breaks; otherwise its breaks are LF here (edit-text matches a file of uniform
 * endings as LF text), so no \r belongs in old_string as a line break.
 */
export function nearMiss(text: string, oldString: string, mixedEndings = false): string | undefined {
  for (const form of ["NFC", "NFD"] as const) {
    if (text.normalize(form).includes(oldString.normalize(form))) {
      return " It does occur once letters are compared in one Unicode form: the file writes some accented letters differently (as one character, or as a letter followed by a combining accent). Copy old_string from the file's own text as read returned it.";
    }
  }
  const withoutCr = (t: string): string => t.replaceAll("\r", "");
  if (withoutCr(oldString) !== "" && withoutCr(text).includes(withoutCr(oldString))) {
    return mixedEndings
      ? " It does occur once carriage returns (\\r) are set aside: its line breaks are written otherwise in the file."
      : " It does occur once carriage returns (\\r) are set aside: leave the \\r out of old_string (and new_string), and write each line break as \\n; edit keeps the file's own line endings.";
  }
  const fileLines = text.split("\n");
  const oldLines = oldString.split("\n");
  const line = matchIgnoringSpacing(fileLines, oldLines);
  if (line === undefined) return undefined;
  // Where a whole line matched, its indentation says what differs.
  let how = "";
  for (let j = 0; j < oldLines.length && how === ""; j++) {
    const fileLine = fileLines[line - 1 + j] as string;
    const oldLine = oldLines[j] as string;
    if (spacing(fileLine) !== spacing(oldLine)) continue;
    const difference = indentDifference(fileLine, oldLine);
    if (difference !== undefined) how = ` (line ${line + j} ${difference})`;
  }
  return ` Text that differs only in spacing starts at line ${line}${how}: copy old_string exactly from there, with the file's own tabs and spaces.`;
}
