// word_count: lines, words and characters of text files in the workspace.
//
// A plugin's index.js is one self-contained ES module (no imports) that exports
// `async function execute(args, runtime)`. `args` has been validated against input_schema;
// `runtime` offers only what tool.yaml's `requires` declares — here `fs.read`, so
// runtime.fs.readText and runtime.fs.list. What execute returns is checked against
// output_schema; a thrown Error becomes the error the model sees, so say how to fix the call.

function count(path, text) {
  const words = text.split(/\s+/).filter((w) => w.length > 0).length;
  let lines = 0;
  for (const ch of text) if (ch === "\n") lines++;
  if (text.length > 0 && !text.endsWith("\n")) lines++;
  return { path, lines, words, chars: [...text].length };
}

export async function execute(args, runtime) {
  const paths = [...(args.paths ?? [])];
  if (args.folder !== undefined) {
    const entries = await runtime.fs.list(args.folder);
    const prefix = args.folder.replace(/\/+$/, "");
    for (const entry of entries) {
      if (entry.type === "file")
        paths.push(prefix === "." || prefix === "" ? entry.name : `${prefix}/${entry.name}`);
    }
  }
  if (paths.length === 0) {
    throw new Error('Nothing to count: give "paths" (files) or "folder" (a folder whose files are counted).');
  }
  const files = [];
  for (const path of paths) files.push(count(path, await runtime.fs.readText(path)));
  const total = { files: files.length, lines: 0, words: 0, chars: 0 };
  for (const f of files) {
    total.lines += f.lines;
    total.words += f.words;
    total.chars += f.chars;
  }
  runtime.log(`counted ${files.length} file(s)`);
  return { files, total };
}
