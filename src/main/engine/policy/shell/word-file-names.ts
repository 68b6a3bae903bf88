/**
 * The texts in one argument that may name a file the program opens, before expansion:
 * - a word that is not an option, as it is;
 * - what follows `=` (`--file=.env`, `if=/dev/sda`);
 * - what a short option may carry attached: to getopt, `-a/path` is `-a /path`, and a cluster
 *   such as `-0a/path` ends in one. Which letter takes a value is the program's to say, so every
 *   tail from the second letter on is a reading, up to the first `/` (a path's own letters come
 *   after it): `xargs -a/home/u/.ssh/id_ed25519 echo` prints the key as `xargs -a <key>` does.
 * A reading that is not the program's names a path nobody hides: it costs a check, nothing more.
 */
export function wordFileNames(word: string): WordFileName[] {
  const option = word.startsWith("-") && word !== "-";
  const out: WordFileName[] = option ? [] : [{ text: word }];
  const eq = word.indexOf("=");
  if (eq >= 0 && eq < word.length - 1) out.push({ text: word.slice(eq + 1) });
  if (option && !word.startsWith("--")) {
    const slash = word.indexOf("/");
    const last = slash < 0 ? word.length - 1 : slash;
    for (let i = 2; i <= last; i++) out.push({ text: word.slice(i), attached: true });
  }
  return out.filter((name, i) => out.findIndex((other) => other.text === name.text) === i);
}

/** One text an argument may name a file by (see wordFileNames). */
export interface WordFileName {
  text: string;
  /** Read as a short option's attached value, which it may not be (`-la` holds no file "a"). */
  attached?: true;
}
