import { describe, expect, it } from "vitest";
import { givesDashAsFile } from "./dash-operand.ts";
import { analyzeShell } from "./shell-analysis.ts";

// `-` is standard input to most readers and a file name to the listers: only the latter are
// checked as the path ./- (and ask when there is none yet, with the sandbox off). To find and jq
// it depends on where it stands; to strings it is an option and to pgrep a pattern.
describe("a - operand", () => {
  it.each([
    ["ls -", true],
    ["ls -- -", true],
    ["ls -l", false],
    ["ls '-'", true],
    ["du -", true],
    ["tree -", true],
    ["readlink -", true],
    ["echo a-b | rg -e - -", false],
    ["cat - README.md", false],
    ["grep x -", false],
    ["tar tf -", false],
    ["sed p -", false],
    ["echo -", false],
    // column (util-linux) opens a file named - (checked: `column -` printed a linked file's text).
    ["column -", true],
    ["hexdump -C -", true],
    ["hd -", true],
    // coreutils od and vim's xxd: "when FILE is -, read standard input".
    ["od -c -", false],
    ["xxd -", false],
    // procps ps rejects a lone - (garbage option); only its namelist (-n, BSD N) is a file.
    ["ps -", false],
    ["ps -e -", false],
    ["ps -n -", true],
    ["ps N -", true],
    ["ps -en -", true],
    ['ps "$O" -', true],
    // binutils strings reads - as its option -a, even after --; pgrep takes it for a pattern.
    ["strings -", false],
    ["strings -- -", false],
    ["pgrep -", false],
    // find: a starting point, or the argument of a predicate that names a file, is a file.
    ["find -", true],
    ["find - -maxdepth 0", true],
    ["find -L - -type f", true],
    ["find . - -name x", true],
    ["find . -newer -", true],
    ["find . -samefile -", true],
    ["find . -neweraa -", true],
    // ... the argument of a pattern, name or number predicate is text.
    ["find . -name -", false],
    ["find . -iname - -o -path -", false],
    ["find . -regex - -print", false],
    ["find . -lname -", false],
    ["find . '(' -name - ')' -print", false],
    ["find . -newermt -", false],
    // jq: after the filter, - is standard input; a file to -f, --rawfile, --slurpfile.
    ["jq . -", false],
    ["jq -r .a - -", false],
    ["jq -rc --tab . -", false],
    ["jq -", true],
    ["jq -f - x.json", true],
    ["jq --from-file - x.json", true],
    ["jq -n --rawfile k - .", true],
    ["jq --slurpfile k - . x.json", true],
    ["jq -rf - x.json", true],
    ['jq "$OPT" . -', true],
  ])("%s gives - as a file: %s", (source, gives) => {
    const command = analyzeShell(source).commands.at(-1);
    expect(command).toBeDefined();
    expect(givesDashAsFile(command?.name ?? "", command as NonNullable<typeof command>)).toBe(gives);
  });

  // A wrapper's words are those of the command it runs, which is judged as itself.
  it.each([
    ["timeout 5 cat -", false],
    ["nice -n 5 grep x -", false],
    ["env - jq . -", false],
    ["stdbuf -oL cat -", false],
    // GNU xargs reads `-a -` as its standard input; -I, -E and -d take text.
    ["echo x | xargs -a - echo", false],
    ["xargs --arg-file - echo", false],
    ["xargs -I - echo -", false],
    ["xargs -E - -d - echo", false],
    ["xargs -a - ls -", true],
    ["timeout 5 ls -", true],
    ["env LC_ALL=C du -a -", true],
    ["nice find - -maxdepth 0", true],
  ])("%s gives - as a file to some command: %s", (source, gives) => {
    const commands = analyzeShell(source).commands;
    expect(commands.length).toBeGreaterThan(1);
    expect(commands.some((c) => givesDashAsFile(c.name, c))).toBe(gives);
  });
});
