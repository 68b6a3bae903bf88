/**
 * Terms for matching tools against what a model asks for: identifiers split into words
 * (`getUserInfo`, `get_user_info`, `get-user-info` all give get, user, info), lower-cased,
 * common English filler dropped, and a light suffix-stripping stem so "issues", "creating" and
 * "created" meet "issue" and "create".
 */

const STOP_WORDS = new Set(
  (
    "a an the and or but if of to in on at by for with from into onto over about as is are was were be been " +
    "being it its this that these those there here i me my we our you your he she they them their what which " +
    "who whom whose how when where why can could would should will shall may might must do does did done " +
    "have has had having not no so than then too very just also any some all each such own same other " +
    "please want need like get gets using use via tool tools"
  ).split(" "),
);

/** Words for the same action or thing that tool authors and models use interchangeably (stemmed). */
const RELATED: ReadonlyArray<readonly string[]> = [
  ["delet", "remov", "eras", "destroy", "drop"],
  ["creat", "add", "new", "mak", "insert"],
  ["fetch", "retriev", "read", "load", "download", "pull"],
  ["list", "enumerat", "show", "brows"],
  ["search", "find", "query", "lookup", "look"],
  ["send", "post", "publish", "notify"],
  ["updat", "edit", "modify", "chang", "set", "renam"],
  ["run", "execut", "trigger", "start", "launch", "invok"],
  ["stop", "cancel", "abort", "halt", "kill", "terminat"],
  ["imag", "pictur", "photo", "screenshot"],
  ["mail", "email", "inbox"],
  ["repo", "repository"],
  ["db", "databas", "sql"],
  ["k8s", "kubernet"],
  ["doc", "document"],
  ["calendar", "meet", "event", "schedul", "appointment"],
  ["translat", "languag"],
  ["pric", "quot", "cost"],
  ["convert", "transform"],
  ["upload", "put"],
  ["summariz", "summary", "tldr"],
  ["pr", "merg"],
  ["issu", "bug", "ticket"],
  ["messag", "chat", "dm"],
  ["weather", "forecast"],
  ["location", "address", "plac"],
];

const relatedByTerm = new Map<string, readonly string[]>();
for (const group of RELATED) {
  for (const term of group)
    relatedByTerm.set(
      term,
      group.filter((t) => t !== term),
    );
}

/** Strip the common English inflections, the same way for queries and tool text. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("ied") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  const hasVowel = (stemPart: string): boolean => /[aeiouy]/.test(stemPart);
  let suffixed = false;
  if (w.endsWith("ing") && w.length > 5 && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    suffixed = true;
  } else if (w.endsWith("ed") && w.length > 4 && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    suffixed = true;
  }
  // Undo a final consonant the suffix doubled ("running" → "run"), but not ll/ss/zz ("pulled").
  if (suffixed && /([b-df-hj-kmnp-rtvwxy])\1$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** The words of a text: identifiers split at case changes, `_`, `-`, `.` and any other non-letter. */
export function words(text: string): string[] {
  return (
    text
      .replace(/([a-z\d])([A-Z])/g, "$1 $2")
      // A lookahead, not `([A-Z]+)([A-Z][a-z])`: that backtracks quadratically over a long run of
      // capitals (a description that is one huge word froze the engine for minutes).
      .replace(/([A-Z])(?=[A-Z][a-z])/g, "$1 ")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 0)
  );
}

/** The matching terms of a text: its words without filler, stemmed. */
export function searchTerms(text: string): string[] {
  return words(text)
    .filter((w) => !STOP_WORDS.has(w))
    .map(stem);
}

/** Terms that often stand for the same thing as `term` (already stemmed). */
export function relatedTerms(term: string): readonly string[] {
  return relatedByTerm.get(term) ?? [];
}
