import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { provablyReadOnly } from "./read-only-command.ts";
import { analyzeShell } from "./shell-analysis.ts";

/** Without an OS sandbox only these run unattended: ordinary reads must stay usable. */
const READ_ONLY = [
  "ls",
  "ls -la src",
  "pwd",
  "git status",
  "git status --short",
  "git log --oneline -10",
  "git log -p -- src/x.ts",
  "git diff HEAD~1 --stat",
  "git show HEAD:README.md",
  "git branch",
  "git branch -a --list 'feat/*'",
  "git tag -l",
  "git remote -v",
  "git rev-parse --abbrev-ref HEAD",
  "git ls-files '*.ts'",
  "git log --oneline *",
  "git ls-files *.ts",
  "git blame -L 1,10 README.md",
  "git stash list",
  "git config --get user.email",
  "git -C sub log -1",
  "git -Csub log -1",
  'git log --grep "$PATTERN"',
  "grep -rn foo src",
  "grep -rn foo src | head -20",
  "rg -n 'TODO' src",
  "cat a | wc -l",
  "cat README.md",
  "head -n 50 src/x.ts",
  "tail -f log.txt",
  "wc -l src/*.ts",
  "find . -name '*.ts' -not -path './node_modules/*'",
  "stat package.json",
  "du -sh .",
  "df -h",
  "echo hello",
  'echo "$HOME" && printf "%s\\n" a b',
  "sort f | uniq -c | sort -rn | head",
  "sed -n '1,20p' f",
  "awk '{print $1}' f",
  "cut -d: -f1 /etc/passwd",
  "diff a b",
  "cmp a b",
  "jq .name package.json",
  "tree -L 2",
  "file README.md",
  "date +%Y",
  "which node",
  "command -v git",
  "type ls",
  "node --version",
  "python3 --version",
  "npm --version",
  "tar tzf a.tgz",
  // Listing names members: a glob is read against the disk when the call is decided.
  "tar tf x.tar *",
  "tar -tvf x.tar *.txt",
  "tar --list -f x.tar *",
  "tar -tf x.tar -- *",
  "tar tf *.tar",
  "tar -f x.tar -t",
  "tar -vf x.tar --list",
  "unzip -l a.zip",
  "sha256sum a",
  "ls > /dev/null 2>&1",
  "cd src && ls",
  "x=$(git rev-parse HEAD); echo $x",
  "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done",
  "ps | grep node",
  "ps axc | grep node",
  "sleep 1",
  "bash -c 'ls && pwd'",
  "env | sort",
  "timeout 5 cat f",
  "find src -type f | xargs echo",
  "find . -name '*.md' -exec echo {} \\;",
  "for f in *.ts; do echo $f; done",
  "diff <(ls) <(ls src)",
  "cd src && grep -rn foo",
  "cat /proc/cpuinfo /proc/self/status",
  "ps -e",
  "ps -e -o pid,comm",
  "ps -C node -o pid=,comm=",
  "pgrep -l node",
  'grep -n -e "$PATTERN" README.md | head',
  "git grep -n foo",
  "git remote show -n origin",
  "diff -r --no-dereference a b",
  "sed -n '/start/,/end/p' f",
  "sha256sum a b",
  "od -An -tx1 -N4 /dev/urandom",
  "nm -C --print-size a.o",
  "bash --norc -c ls",
  "unset -f PATH; cat a",
  "let i++; cat a",
  "zcat -r docs",
  "env -u LANG cat a",
  "set -euo pipefail; cat a",
  "set -f; set -B; shopt -s -o braceexpand; shopt -o noglob; cat a",
  "export -n X; cat a",
  "awk 'BEGIN { for (i in ARGV) print ARGV[i]; if (ARGV[1] == \"x\") exit } 1' f",
  "awk 'BEGIN { delete ARGV[1] } 1' f g",
];

/**
 * Without a sandbox, a reader runs unconfined: every path it reads must be one the policy checks
 * against the hidden paths before it runs, and nothing of another process may be read.
 */
const READS_UNSEEN: [string, RegExp][] = [
  [
    "cat $HOMEDIR/.ssh/id_ed25519",
    /"cat" is given "\$HOMEDIR\/\.ssh\/id_ed25519", a name only known when the shell runs/,
  ],
  // $HOME/… is read as ~/… (and checked as it, see seen-path.test.ts); with more in it, it is not.
  ['cat "${HOME}/$f"', /only known when the shell runs/],
  ["cat $HOME/.ss*/id_ed25519", /only known when the shell runs/],
  ["cat ${HOME}${x}", /only known when the shell runs/],
  ["cat ~/'.ssh'/id_ed25519", /only known when the shell runs/],
  ["x=~/.ssh/id_ed25519; cat $x", /only known when the shell runs/],
  ["for f in ~/.ssh/*; do cat $f; done", /only known when the shell runs/],
  ["bash -c 'cat $H/.ssh/id_ed25519'", /only known when the shell runs/],
  ["find . -exec cat {} \\;", /"cat" is given "\{\}"/],
  ["find src -type f | xargs grep -l foo", /"grep" is given "<xargs input>"/],
  ["cat names.txt | xargs head", /"head" is given "<xargs input>"/],
  ["xargs -a names.txt cat", /"cat" is given "<xargs input>"/],
  ["awk 'BEGIN { ARGV[1] = \"k\" } 1' f", /it changes ARGV, the files awk reads/],
  ["awk 'BEGIN { ARGV[a[1]]++ } 1' f", /it changes ARGV/],
  ["awk 'BEGIN { split(\"k\", ARGV) } 1' f", /it changes ARGV/],
  ["awk 'BEGIN { getline ARGV[1] } 1' f", /it changes ARGV/],
  ["zcat -rf homelink", /"zcat -rf" follows every symbolic link it meets/],
  ["gunzip -c --for --recursive .", /"gunzip --for" follows every symbolic link/],
  ["cd ~ && git grep --no-ind -h KEY", /"git" reads whole folders in "~"/],
  ["set +B; cat {a,b}", /"set \+B" turns brace expansion off/],
  ["set -e +Bx; cat x", /"set \+Bx" turns brace expansion off/],
  ["set +o braceexpand; cat x", /turns brace expansion off/],
  ["shopt -u -o braceexpand; cat x", /"shopt -u -o braceexpand" turns brace expansion off/],
  ["bash +B -c 'cat {a,b}'", /"bash \+B" turns brace expansion off/],
  ["bash +o braceexpand -c 'cat x'", /"bash \+o braceexpand" turns brace expansion off/],
  ["TAPE=host:x tar -t", /setting TAPE names the archive tar reads/],
  ["less -F -t foo", /"less -t" opens the file a tags file names/],
  ["LESSGLOBALTAGS=./g less -t x", /setting LESSGLOBALTAGS/],
  ["pgrep -f api-key=a", /matches its pattern against the command lines of other processes/],
  ["pgrep --list-f node", /"pgrep --list-f" shows the command lines/],
  ["zcat -r ~", /"zcat" reads the whole folder "~", outside the workspace/],
  ["cd $H && cat .ssh/id_ed25519", /runs in a folder that is only known when the shell runs/],
  ['cd "$HOME/$d" && cat .ssh/id_ed25519', /runs in a folder that is only known when the shell runs/],
  // A HOME the command sets or unsets itself is never read as Lathe's.
  ["HOME=/x cat $HOME/.ssh/id_ed25519", /cannot be fully seen: setting HOME/],
  ["unset HOME; cat $HOME/proc/1/environ", /cannot be fully seen: unsetting HOME makes \$HOME empty/],
  ["let HOME=1; cat ~/x", /cannot be fully seen: "let HOME=1": setting HOME/],
  ["coproc HOME { cat; }; cat ~/x", /cannot be fully seen: setting HOME/],
  ["pushd ~ > /dev/null; popd; grep -r x", /runs in a folder that is only known/],
  ["grep -r PRIVATE ~", /reads the whole folder "~", outside the workspace/],
  ["grep -rl PRIVATE /", /reads the whole folder "\/"/],
  ["grep -rn foo src/../..", /reads the whole folder "src\/\.\.\/\.\."/],
  ['grep -n "$PATTERN" README.md', /"grep" is given "\$PATTERN"/],
  ["grep --recursive x ../..", /reads the whole folder "\.\.\/\.\."/],
  ["grep -d recurse x /home", /reads the whole folder "\/home"/],
  ["rg --hidden PRIVATE ~/", /reads the whole folder "~\/"/],
  ["cd ~ && grep -r PRIVATE", /reads whole folders in "~"/],
  ["diff -r --no-dereference ~ /tmp/x", /reads the whole folder "~"/],
  ["git diff --no-index ~ /tmp/x", /reads the whole folder "~"/],
  ["grep -R PRIVATE src", /follows every symbolic link/],
  ["rg -L PRIVATE src", /follows every symbolic link/],
  ["diff -r a b", /"diff -r" follows every symbolic link/],
  ["ps eww", /"ps eww" shows the environment of other processes/],
  ["ps axe", /"ps axe" shows the environment/],
  // Other processes' command lines: what the sandbox's own process namespace hides.
  ["ps aux | grep node", /"ps aux" shows the command lines of other processes.*ps -e -o pid,comm/],
  ["ps -ef", /"ps -ef" shows the command lines of other processes \(-f\)/],
  ["ps -eo pid,args", /command lines of other processes \(args\)/],
  ["ps --format pid,cmd", /command lines of other processes \(cmd\)/],
  ["ps 1", /the BSD form without c/],
  ["pgrep -af node", /"pgrep -af" shows the command lines of other processes/],
  ["PS_FORMAT=pid,args ps -e", /setting PS_FORMAT/],
  ["ps $OPTS", /only known when the shell runs/],
  ["cat /proc/1/environ", /reads "\/proc\/1\/environ", which belongs to another process/],
  ["grep -a KEY /proc/*/environ", /belongs to another process/],
  ["strings /proc/self/../1/environ", /belongs to another process/],
  ["cd /proc && cat 1/environ", /belongs to another process/],
  // A value attached to a short option: `xargs -a/proc/1/environ` is `xargs -a /proc/1/environ`.
  ["xargs -a/proc/1/environ -0 echo", /reads "\/proc\/1\/environ", which belongs to another process/],
  ["xargs -0a/proc/1/environ echo", /belongs to another process/],
  ["grep -hf/proc/1/cmdline README.md", /belongs to another process/],
  ["cd /proc/1 && xargs -aenviron -0 echo", /belongs to another process/],
  ["head -c64 -q/dev/sda", /reads the device "\/dev\/sda"/],
  ["cat /proc/$PPID/environ", /only known when the shell runs/],
  ["sort --files0-from=names0", /reads the names of the files it reads from another file/],
  ["wc --files0-from names0", /reads the names of the files/],
  ["sha256sum -c sums", /reads the names of the files/],
  ["file -f names", /reads the names of the files/],
  [
    "sed '1r /home/u/.ssh/id_ed25519' README.md",
    /the sed script reads "\/home\/u\/\.ssh\/id_ed25519" \(r, R\)/,
  ],
  ["sed -n 'R names' f", /the sed script reads "names"/],
  ["cat /dev/sda", /reads the device "\/dev\/sda"/],
  ["head -c 64 /dev/nvme0n1", /reads the device/],
];

/** Without a sandbox nothing reaches the network unasked. */
const REACHES_NETWORK: [string, RegExp][] = [
  ["git ls-remote https://example.com/r.git", /asks a remote repository over the network/],
  ["git ls-remote origin", /over the network/],
  ["git remote show origin", /asks each remote over the network/],
];

/** Not provably read-only, each for a reason a person would recognise. */
const NOT_READ_ONLY: [string, RegExp][] = [
  ["touch f", /"touch" is not among the commands known to only read/],
  ["echo x > f", /writes to "f"/],
  ["echo x >> log", /writes to "log"/],
  ["cat <> f", /writes to "f"/],
  ["ls | tee out", /"tee"/],
  ["sort -o out f", /writes "out"/],
  ["sort $f ", /could be an option of "sort"/],
  ["sed -i s/a/b/ f", /writes "f"/],
  ["sed 'w out' f", /writes "out"/],
  ["sed 'e id' f", /runs shell commands/],
  ["awk 'BEGIN{system(\"id\")}'", /system\(\)/],
  ["find . -delete", /writes "\."/],
  ["find . -exec rm {} \\;", /"rm" is not among/],
  ["git commit -m x", /"git commit" may change the repository/],
  ["git branch new", /creates or changes a branch/],
  ["git branch -D old", /creates or changes a branch/],
  ["git stash", /"git stash" may change the repository/],
  ["git config user.name me", /writes "\.git\/config"/],
  ["git config *", /could be an option/],
  ["tar tf host:x.tar", /"tar" reads "host:x.tar" from another machine/],
  ["tar -t --file=me@host:x.tar", /from another machine/],
  ["git branch *", /could be an option|creates or changes a branch/],
  ["git diff *", /could be an option/],
  ["git -c core.pager=x log", /core\.pager/],
  ["git diff --output=x", /writes "x"/],
  ["git log $X", /could be an option/],
  ["git frobnicate", /may change the repository or run programs/],
  ["rg --pre ./x.sh foo", /may write files or run programs/],
  ["date -s 2020-01-01", /may write files or run programs/],
  // tree -R writes 00Tree.html into every folder at the -L level; --info prints .info files.
  ["tree -L 1 -R", /"tree -R" may write files or run programs/],
  ["tree -aRL 1", /"tree -aRL" may write files or run programs/],
  ["tree --info .", /"tree --info" may write files or run programs/],
  ["tree --infofile=notes .", /may write files or run programs/],
  ["hostname evil", /sets the machine's name/],
  ["node x.js", /only its --version and --help/],
  ["python3 -c 'print(1)'", /only its --version and --help/],
  ["./script.sh", /a program whose effects Lathe does not know/],
  ["/tmp/ls", /a program whose effects Lathe does not know/],
  ["curl http://127.0.0.1/", /"curl" is not among/],
  ["rm -rf build", /"rm" is not among/],
  ["x='a[$(id)]'; echo $((x))", /cannot be fully seen/],
  ["eval ls", /cannot be fully seen/],
  ["PATH=. ls", /cannot be fully seen: setting PATH/],
  ["TAR_OPTIONS=--use-compress-program=./x.sh tar tf a.tar", /setting TAR_OPTIONS adds options/],
  ["export TAR_OPTIONS=-I./x.sh; tar tf a.tar", /setting TAR_OPTIONS/],
  ["RIPGREP_CONFIG_PATH=./rc rg foo", /setting RIPGREP_CONFIG_PATH makes rg read options/],
  ["env RIPGREP_CONFIG_PATH=./rc rg foo", /setting RIPGREP_CONFIG_PATH/],
  ["echo $(touch f)", /"touch"/],
  ["cat <(rm x)", /"rm"/],
  ["tar xf a.tar", /only reads when listing|writes "\."/],
  // Whatever a glob adds, extraction and the options that run programs still need a person.
  ["tar xf x.tar *", /writes "\."/],
  ["tar -xf x.tar *", /writes "\."/],
  ["tar --extract -f x.tar *", /writes "\."/],
  ["tar -t -x -f x.tar *", /writes "\."/],
  ["tar -xf x.tar -C out *", /writes "out"/],
  ["tar tf x.tar --to-command=sh *", /--to-command/],
  ["tar -tf x.tar --use-compress-program=./p *", /compression program/],
  ["tar -t -I ./p -f x.tar *", /compression program/],
  ["tar -tf x.tar --checkpoint=1 --checkpoint-action=exec=sh *", /checkpoint/],
  ["tar cf a.tar *", /could be an option of "tar"|writes "a\.tar"/],
  ["tar -f x.tar -v", /only reads when listing/],
  ["tar -f x.tar -t -x", /writes "\."|only reads when listing/],
  ["tar t*", /the first word of "tar", "t\*", is only known when the shell runs/],
  ["tar [t]f x.tar", /the first word of "tar"/],
  ["tar tf x.tar $F", /could be an option of "tar"/],
  ["uniq in out", /writes/],
  ["kill 1", /"kill"/],
  // Programs a reader runs: a shared library (nm --plugin, by a prefix too), a startup file, a
  // variable naming zgrep's grep; and a PATH changed by arithmetic or unset.
  ["nm --plugin ./p.so a.o", /"nm --plugin" may write files or run programs/],
  ["nm --plug=./p.so a.o", /"nm --plug=\.\/p\.so" may write/],
  ["bash --init-file ./x -ic true", /"bash --init-file" runs the startup file "\.\/x"/],
  ["bash --rcfile x -i", /"bash --rcfile" runs the startup file/],
  ["GREP=./evil zgrep foo a.gz", /setting GREP names the program zgrep runs/],
  ["((PATH=1)); cat a", /setting PATH/],
  ["let PATH+=1 x=2; cat a", /setting PATH/],
  ["unset -v IFS PATH; cat a", /unsetting PATH/],
  ["env -i bash -c 'node --version'", /"env" starts "bash" without PATH/],
  ["env - sh -c ls", /"env" starts "sh" without PATH/],
  ["env --unset=PATH bash -c ls", /without PATH/],
  ["export -n PATH; bash -c ls", /"export -n PATH" leaves it out/],
  ["declare +x PATH; bash -c ls", /"declare \+x PATH" leaves it out/],
  // getopt takes a prefix of a long option: file --comp writes x.mgc, date --se sets the clock.
  ["file --comp -m x", /"file --comp" may write/],
  ["date --se=2000-01-01", /"date --se=2000-01-01" may write/],
];

describe("provablyReadOnly", () => {
  it.each(READ_ONLY)("reads only: %s", (command) => {
    expect(provablyReadOnly(analyzeShell(command))).toBeUndefined();
  });

  it.each(NOT_READ_ONLY)("does more than read: %s", (command, reason) => {
    expect(provablyReadOnly(analyzeShell(command))).toMatch(reason);
  });

  it.each(READS_UNSEEN)("may read what only the sandbox would hide: %s", (command, reason) => {
    expect(provablyReadOnly(analyzeShell(command))).toMatch(reason);
  });

  it.each(REACHES_NETWORK)("reaches the network: %s", (command, reason) => {
    expect(provablyReadOnly(analyzeShell(command))).toMatch(reason);
  });

  // A relative PATH entry is looked in from the workspace, where the model can put a `cat`.
  it.each([
    ["cat README.md", "bin:/usr/bin:/bin", /PATH holds "bin", a folder relative to where the command runs/],
    ["cat README.md", ":/usr/bin:/bin", /PATH holds "\(an empty entry\)"/],
    ["ls", "./node_modules/.bin:/usr/bin:/bin", /"ls" may run a program from the workspace/],
    ["echo x | xargs", ".:/usr/bin:/bin", /"echo" may run a program/],
  ])("%s with PATH=%s may run a workspace program", (command, searchPath, reason) => {
    expect(provablyReadOnly(analyzeShell(command), searchPath)).toMatch(reason);
  });

  // npm's script is `#!/usr/bin/env node`: node is looked up on the same PATH.
  it("npm --version with a relative PATH entry before any node may run the workspace's node", () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), "lathe-npm-only-"));
    try {
      writeFileSync(path.join(folder, "npm"), "#!/usr/bin/env node\n", { mode: 0o755 });
      expect(provablyReadOnly(analyzeShell("npm --version"), `${folder}:bin:/usr/bin:/bin`)).toMatch(
        /"npm" here starts "node" itself: PATH holds "bin"/,
      );
      mkdirSync(path.join(folder, "node-bin"));
      symlinkSync(process.execPath, path.join(folder, "node-bin/node"));
      expect(
        provablyReadOnly(analyzeShell("npm --version"), `${folder}:${folder}/node-bin:bin`),
      ).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it.each([
    ["cat README.md", "/usr/bin:/bin:bin"],
    ["echo hi; cd src; pwd", ".:/usr/bin:/bin"],
  ])("%s with PATH=%s runs the system's program or a builtin", (command, searchPath) => {
    expect(provablyReadOnly(analyzeShell(command), searchPath)).toBeUndefined();
  });
});
