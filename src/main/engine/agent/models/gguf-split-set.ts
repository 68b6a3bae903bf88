import path from "node:path";

/**
 * A model llama.cpp's gguf-split wrote as several files, `name-00001-of-00003.gguf` and on:
 * node-llama-cpp loads it from its first part and reads the others beside it. Its name pattern is
 * node-llama-cpp's own (five digits each, lower-case `.gguf`): a file it would not read as a part
 * is a model of its own here too.
 */
const PART = /^(?<stem>.+)-(?<part>\d{5})-of-(?<parts>\d{5})\.gguf$/;

interface SplitPart {
  /** The folder and the name before `-00001-of-…`. */
  stem: string;
  part: number;
  parts: number;
}

/** The set a file is a part of, or undefined for a whole model (or a name no loader reads as a part). */
function splitPartOf(file: string): SplitPart | undefined {
  const match = PART.exec(path.basename(file));
  if (!match?.groups) return undefined;
  const part = Number(match.groups["part"]);
  const parts = Number(match.groups["parts"]);
  if (part === 0 || parts === 0 || part > parts) return undefined;
  return { stem: path.join(path.dirname(file), match.groups["stem"] ?? ""), part, parts };
}

function partFile(stem: string, part: number, parts: number): string {
  const five = (n: number) => String(n).padStart(5, "0");
  return `${stem}-${five(part)}-of-${five(parts)}.gguf`;
}

/** One model in the folder: a file of its own, or a split set named by its first part. */
export type GgufModelFiles =
  | { kind: "whole"; file: string }
  | {
      kind: "split";
      /** The first part, which the model is loaded from (whether or not it is there). */
      file: string;
      /** The set's name for the picker: `name (3 parts)`. */
      name: string;
      /** The parts that are there, in order. */
      present: string[];
      /** The parts that are not there: their numbers and the files they would be. */
      missing: Array<{ part: number; file: string }>;
      parts: number;
    };

/** The files found, with each split set's parts gathered into one model, in the files' order. */
export function groupSplitSets(files: string[]): GgufModelFiles[] {
  const sets = new Map<string, { stem: string; parts: number; present: Map<number, string> }>();
  const models: Array<GgufModelFiles | string> = [];
  for (const file of files) {
    const split = splitPartOf(file);
    if (split === undefined) {
      models.push({ kind: "whole", file });
      continue;
    }
    const key = partFile(split.stem, 1, split.parts);
    let set = sets.get(key);
    if (set === undefined) {
      set = { stem: split.stem, parts: split.parts, present: new Map() };
      sets.set(key, set);
      models.push(key); // the set takes the place of the first of its parts that was found
    }
    set.present.set(split.part, file);
  }
  return models.map((entry) => {
    if (typeof entry !== "string") return entry;
    const set = sets.get(entry);
    if (set === undefined) throw new Error(`split set ${entry} was lost while grouping`);
    const numbers = Array.from({ length: set.parts }, (_, i) => i + 1);
    return {
      kind: "split",
      file: entry,
      name: `${path.basename(set.stem)} (${set.parts} parts)`,
      present: numbers.flatMap((n) => set.present.get(n) ?? []),
      missing: numbers
        .filter((n) => !set.present.has(n))
        .map((n) => ({ part: n, file: partFile(set.stem, n, set.parts) })),
      parts: set.parts,
    };
  });
}

/** What a person reads about the parts that are not there: "part 2 of 3 is missing (…)". */
export function missingPartsProblem(missing: Array<{ part: number; file: string }>, parts: number): string {
  const [only] = missing;
  if (missing.length === 1 && only !== undefined) {
    return `part ${only.part} of ${parts} is missing (${path.basename(only.file)}): put it beside the other parts`;
  }
  const numbers = missing.map((m) => m.part);
  const listed = `${numbers.slice(0, -1).join(", ")} and ${numbers.at(-1)}`;
  return `parts ${listed} of ${parts} are missing: put them beside the other parts`;
}

/** Every part of the split model `file` is a part of (whichever part it is), or undefined for a whole model. */
export function partsOfSet(file: string): Array<{ part: number; file: string }> | undefined {
  const split = splitPartOf(file);
  if (split === undefined) return undefined;
  return Array.from({ length: split.parts }, (_, i) => ({
    part: i + 1,
    file: partFile(split.stem, i + 1, split.parts),
  }));
}

/**
 * Why `file` cannot be run by its own name although its header says it is one part of a split
 * model (the `split.count` gguf-split writes): llama.cpp finds the other parts by the first
 * part's name, so a part reached by another name (a Hugging Face cache blob, named by its hash)
 * fails in llama.cpp with words about the name. Undefined when the name says which part it is,
 * or the header says nothing of a split.
 */
export function unnamedPartProblem(file: string, metadata: unknown): string | undefined {
  const split = (metadata as { split?: { no?: unknown; count?: unknown } } | undefined)?.split;
  const count = split?.count;
  if (typeof count !== "number" || count < 2 || splitPartOf(file) !== undefined) return undefined;
  const no = typeof split?.no === "number" ? split.no + 1 : undefined;
  const which = no === undefined ? "one part" : `part ${no}`;
  return `it is ${which} of a model split in ${count}, and its name does not say so (llama.cpp finds the parts by names ending in -00001-of-${String(count).padStart(5, "0")}.gguf and on): name its first part by that name; in the Hugging Face cache, the link in snapshots/<revision>/, not the blob it points to`;
}
