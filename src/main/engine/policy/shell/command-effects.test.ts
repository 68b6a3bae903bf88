import os from "node:os";
import { describe, expect, it } from "vitest";
import { planBashCommand } from "../../builtin/bash-plan.ts";

/**
 * What a command line writes (every fs.write the capability check and the watchdog will see) and
 * why it needs a person, class by class. `writes` lists paths that must all be among the planned
 * writes; `unclear` must match one reason (false: there must be none).
 */

interface Row {
  source: string;
  writes?: string[];
  unclear?: RegExp | false;
}

function check(row: Row): void {
  const plan = planBashCommand(row.source);
  const writes = plan.accesses.flatMap((a) => (a.capability === "fs.write" ? [a.path] : []));
  for (const path of row.writes ?? []) {
    expect(writes, `${row.source}: writes ${JSON.stringify(writes)} should include ${path}`).toContain(path);
  }
  if (row.unclear === false) expect(plan.unclear, row.source).toEqual([]);
  else if (row.unclear !== undefined) {
    const pattern = row.unclear;
    expect(
      plan.unclear.some((u) => pattern.test(u)),
      `${row.source}: a reason matching ${pattern} in ${JSON.stringify(plan.unclear)}`,
    ).toBe(true);
  }
  if (row.writes === undefined && row.unclear === undefined)
    throw new Error(`row ${row.source} checks nothing`);
}

const WRITER_OPTIONS: Row[] = [
  { source: "sort -o ../s/x f", writes: ["../s/x"], unclear: false },
  { source: "sort --output=../s/x f", writes: ["../s/x"] },
  { source: "sort --outp=../s/x f", writes: ["../s/x"] },
  { source: "sort f -o../s/x", writes: ["../s/x"] },
  { source: "sort -T ../s f", writes: ["../s"] },
  { source: "sort --compress-program=./x.sh f", unclear: /--compress-program/ },
  { source: "shuf -o ../s/x f", writes: ["../s/x"] },
  { source: "uniq f ../s/x", writes: ["../s/x"] },
  { source: "cp -t ../s f", writes: ["../s"] },
  { source: "cp --target-directory=../s f", writes: ["../s"] },
  { source: "mv -t ../s f", writes: ["../s", "f"] },
  { source: "mv f ../s/", writes: ["f", "../s/"] },
  { source: "install -D f ../s/x", writes: ["../s/x"] },
  { source: "install -d ../s/a ../s/b", writes: ["../s/a", "../s/b"] },
  { source: "install --strip-program=./x f d/", unclear: /strip-program/ },
  { source: "split -l 1 f ../s/part", writes: ["../s/partaa"] },
  { source: "split --filter='touch x' f", unclear: /--filter/ },
  { source: "csplit -f ../s/xx f 2", writes: ["../s/xx00"] },
  { source: "xxd f ../s/x", writes: ["../s/x"] },
  { source: "xxd -r hex ../s/x", writes: ["../s/x"] },
  { source: "dd if=f of=../s/x", writes: ["../s/x"] },
  { source: "tee -a ../s/x", writes: ["../s/x"] },
  { source: "touch -d 2020-01-01 ../s/x", writes: ["../s/x"] },
  { source: "truncate -s 0 ../s/x", writes: ["../s/x"] },
  { source: "chmod -x ../s/x", writes: ["../s/x"] },
  { source: "chmod 777 ../s/x", writes: ["../s/x"] },
  { source: "chown --reference=f ../s/x", writes: ["../s/x"] },
  { source: "mkdir -p -m 700 ../s/d", writes: ["../s/d"] },
  { source: "mktemp -p ../s", writes: ["../s"] },
  { source: "mktemp ../s/XXXX", writes: ["../s/XXXX"] },
  { source: "iconv -f utf8 -t ascii -o ../s/x f", writes: ["../s/x"] },
  { source: "/usr/bin/time -o ../s/x true", writes: ["../s/x"] },
  { source: "strace -o ../s/x true", writes: ["../s/x"] },
  { source: "script -q -c true ../s/x", writes: ["../s/x"] },
  { source: "flock ../s/lock true", writes: ["../s/lock"] },
  { source: "less -o../s/log f", writes: ["../s/log"] },
  { source: "patch -p1 < x.diff", unclear: /patch/ },
  { source: "fallocate -l 10 ../s/x", writes: ["../s/x"] },
  { source: "dos2unix ../s/x", writes: ["../s/x"] },
  { source: "uudecode x.uu", unclear: /named inside its input/ },
  { source: "uudecode -o ../s/x x.uu", writes: ["../s/x"] },
  { source: "cpio -id < a.cpio", unclear: /cpio/ },
  { source: "rename 's/a/b/' *", unclear: /Perl expression/ },
  { source: "rsync -a f ../s/", writes: ["../s/"] },
  { source: "rsync --log-file=../s/log f d/", writes: ["../s/log"] },
  { source: "rsync -e 'sh -c x' f h:/d", unclear: /-e runs the program/ },
  { source: "7z x a.7z -o../s", writes: ["../s"] },
  { source: "7z a ../s/a.7z f", writes: ["../s/a.7z"] },
  // A glob can only remove entries of its own folder; one that could match "-rf" needs a person.
  { source: "rm build/*.o", writes: ["build"], unclear: false },
  { source: "rm *.log", unclear: /could be an option of "rm"/ },
  { source: "rm -rf ../*", writes: [".."] },
  { source: "rm .*", writes: [".."] },
  { source: "sort f", unclear: false },
  // bash expands ~ after the = of an argument that looks like an assignment, and after braces.
  { source: "dd if=f of=~/x", writes: [`${os.homedir()}/x`] },
  { source: "dd if=f of=~root/x", unclear: /only known when the shell runs/ },
  { source: "cp f {y,~root/e}", unclear: /only known when the shell runs/ },
];

const LINKS: Row[] = [
  { source: "ln -s ../s/k l", writes: ["l", "../s/k"] },
  { source: "ln -s /etc/passwd l", writes: ["/etc/passwd"] },
  { source: "ln ../s/k hard", writes: ["hard", "../s/k"] },
  { source: "ln -st d ../../s/k", writes: ["d/k", "d/../../s/k"] },
  { source: "ln -sr ../s/k l", writes: ["../s/k"] },
  { source: "ln -s ../lib/x.js node_modules/.bin/x", writes: ["node_modules/.bin/../lib/x.js"] },
  { source: "link ../s/k h", writes: ["../s/k", "h"] },
  { source: "cp -s ../s/k l", writes: ["l", "l/../s/k"] },
  { source: "cp -l ../s/k h", writes: ["h", "../s/k"] },
];

const SED: Row[] = [
  { source: "sed -n '1,10p' f", unclear: false },
  { source: "sed -i s/a/b/ f", writes: ["f"] },
  { source: "sed --in-place=.bak s/a/b/ f", writes: ["f"] },
  { source: "sed -i'../s/*' s/a/b/ f", writes: ["../s/f"] },
  { source: "sed -n 'w ../s/x' f", writes: ["../s/x"] },
  { source: "sed -n '1w ../s/x' f", writes: ["../s/x"] },
  { source: "sed 's/a/b/w ../s/x' f", writes: ["../s/x"] },
  { source: "sed 's|a|b|gw ../s/x' f", writes: ["../s/x"] },
  { source: "sed -e p -e 'W ../s/x' f", writes: ["../s/x"] },
  { source: "sed '$!{p};w ../s/x' f", writes: ["../s/x"] },
  { source: "sed 's/[/]/X/w ../s/x' f", writes: ["../s/x"] },
  { source: "sed 'e touch x' f", unclear: /runs shell commands/ },
  { source: "sed 's/.*/touch x/e' f", unclear: /runs shell commands/ },
  { source: "sed -f script.sed f", unclear: /reads its script from/ },
  { source: 'sed "$S" f', unclear: /only known when the shell runs/ },
  { source: "sed 'r /etc/passwd' f", unclear: false },
  { source: "sed --sandbox 'w x' f", unclear: false },
  { source: "sed 'a hello; w x' f", unclear: false },
];

const AWK: Row[] = [
  { source: `awk '{print $1}' f`, unclear: false },
  { source: `awk '/a|b/ && $1 > 3 {print}' f`, unclear: false },
  { source: `awk 'BEGIN{system("touch x")}'`, unclear: /system\(\)/ },
  { source: `awk '{print | "sh"}' f`, unclear: /pipes/ },
  { source: `awk '{"date" | getline d}' f`, unclear: /pipes/ },
  { source: `awk '{print > "../s/x"}' f`, unclear: /redirects output/ },
  { source: `awk -f prog.awk f`, unclear: /program file/ },
  { source: `awk '@include "x"' f`, unclear: /@ directive/ },
  { source: `gawk -o../s/x 'BEGIN{}'`, writes: ["../s/x"] },
  { source: `awk "$P" f`, unclear: /only known when the shell runs/ },
];

const FIND: Row[] = [
  { source: "find . -name '*.ts'", unclear: false },
  { source: "find ../s -delete", writes: ["../s"] },
  { source: "find . -fprint ../s/x", writes: ["../s/x"] },
  { source: "find . -fls ../s/x", writes: ["../s/x"] },
  { source: "find . -exec touch ../s/x \\;", writes: ["../s/x"] },
  { source: "find ../s -execdir touch x \\;", unclear: /relative to a folder that cannot be known/ },
  // Starting points: a plain glob is read against the disk when the call is decided.
  { source: "find * -name x", unclear: false },
  { source: "find -L * -name x", unclear: /only known when the shell runs and could add an action/ },
  { source: "find * -follow", unclear: /only known when the shell runs and could add an action/ },
  { source: "find -- *", unclear: /only known when the shell runs and could add an action/ },
  { source: "find . -name *.ts", unclear: /only known when the shell runs and could add an action/ },
  { source: "find . $X", unclear: /could add an action/ },
];

const GIT: Row[] = [
  { source: "git status", unclear: false },
  { source: "git log --oneline -5", unclear: false },
  { source: "git -c core.pager=less log", unclear: /core\.pager/ },
  { source: "git -c color.ui=never log", unclear: false },
  { source: "git -c core.fsmonitor='touch x' status", unclear: /core\.fsmonitor/ },
  { source: "git -c alias.x='!touch x' x", unclear: /alias\.x/ },
  { source: "git --exec-path=. status", unclear: /--exec-path/ },
  { source: "git --git-dir=../s/.git log", unclear: /another repository/ },
  { source: "git --work-tree=../s checkout .", unclear: /another repository/ },
  { source: "git -C ../s init", writes: ["../s"] },
  { source: "git -C../s init", writes: ["../s"] },
  // git takes a prefix of a long option; --includes follows a chosen file's include.path.
  { source: "git config --rem core", writes: [".git/config"] },
  { source: "git config --ed", unclear: /opens an editor/ },
  { source: "git config --unset-a core.x", writes: [".git/config"] },
  { source: "git config -f x.cfg --includes --list", unclear: /reads the files the config file includes/ },
  { source: "git config --inc --file=x.cfg -l", unclear: /reads the files the config file includes/ },
  { source: "git config -f x.cfg --list", unclear: false },
  { source: "git config --includes --list", unclear: false },
  { source: "git -C../s log", unclear: false },
  { source: "git archive -o ../s/x.tar HEAD", writes: ["../s/x.tar"] },
  { source: "git archive --output=../s/x.tar HEAD", writes: ["../s/x.tar"] },
  { source: "git archive --remote=x --exec=./y HEAD", unclear: /--exec/ },
  { source: "git format-patch -o ../s HEAD~1", writes: ["../s"] },
  { source: "git diff --output=../s/x", writes: ["../s/x"] },
  { source: "git log -p --outp=../s/x", writes: ["../s/x"] },
  { source: "git bundle create ../s/x.bundle HEAD", writes: ["../s/x.bundle"] },
  { source: "git worktree add ../s/wt", writes: ["../s/wt"] },
  { source: "git clone . ../s/c", writes: ["../s/c"] },
  { source: "git clone --template=./t . c", unclear: /--template/ },
  { source: "git clone -u ./x . c", unclear: /upload-pack/ },
  { source: "git clone --config core.sshCommand=./x . c", unclear: /core\.sshCommand/ },
  { source: "git fetch --upload-pack=./x origin", unclear: /--upload-pack/ },
  { source: "git push --receive-pack=./x origin", unclear: /--receive-pack/ },
  { source: "git config core.fsmonitor 'touch x'", unclear: /core\.fsmonitor/, writes: [".git/config"] },
  { source: "git config user.name me", writes: [".git/config"], unclear: false },
  { source: "git config --get user.name", unclear: false },
  { source: "git config -f ../s/cfg x.y z", writes: ["../s/cfg"] },
  { source: "git remote add evil ../s", writes: [".git/config"] },
  { source: "git rebase -x 'touch x' HEAD~2", unclear: /rebase -x/ },
  { source: "git grep -O'touch x' foo", unclear: /git grep -O/ },
  { source: "git difftool -x 'touch x'", unclear: /difftool/ },
  { source: "git bisect run ./x.sh", unclear: /bisect run/ },
  { source: "git submodule foreach 'touch x'", unclear: /foreach/ },
  { source: "git filter-branch --tree-filter 'touch x'", unclear: /filter-branch/ },
  { source: "git checkout-index -a --prefix=../s/", writes: ["../s/"] },
  { source: "git fast-export --export-marks=../s/m HEAD", writes: ["../s/m"] },
  { source: "git frobnicate", unclear: /not a git command Lathe knows/ },
  { source: 'git log "$X"', unclear: /could be an option such as --output/ },
  // A plain glob of revisions and paths is read against the disk when the call is decided.
  { source: "git log *", unclear: false },
  { source: "git diff *", unclear: /could be an option such as --output/ },
  { source: "git config *", unclear: /could be an option/ },
  { source: 'git commit -m "$MSG"', unclear: false },
];

const INTERPRETERS: Row[] = [
  { source: "python3 -c 'print(1)'", unclear: /runs the code/ },
  { source: "python3 -Ic'import os'", unclear: /runs the code/ },
  { source: "python3 - <<'EOF'\nopen('x','w')\nEOF", unclear: /standard input/ },
  { source: "python3 <<'EOF'\nopen('x','w')\nEOF", unclear: /standard input/ },
  { source: "python3 /dev/stdin <<< 'print(1)'", unclear: /stream/ },
  { source: "python3 <(echo 'print(1)')", unclear: /only known when the shell runs/ },
  { source: "echo 'print(1)' | python3", unclear: /standard input/ },
  { source: "python3 -X pycache_prefix=../s x.py", writes: ["../s"] },
  { source: "node -e 'x'", unclear: /runs the code/ },
  { source: "node --eval=x", unclear: /runs the code/ },
  { source: "node -pe 1", unclear: /runs the code/ },
  { source: "node --import=data:text/javascript,x x.js", unclear: /preloads/ },
  { source: "node < x.js", unclear: /standard input/ },
  { source: "perl -e 'x'", unclear: /runs the code/ },
  { source: "perl -lne 'print' f", unclear: /runs the code/ },
  { source: "perl '-Mstrict;system(1)' x.pl", unclear: /loads a module/ },
  { source: "perl -pi -e 's/a/b/' f", writes: ["f"] },
  { source: "ruby -e x", unclear: /runs the code/ },
  { source: "php -r 'x;'", unclear: /runs the code/ },
  { source: "tclsh <<< 'exec touch x'", unclear: /standard input/ },
  { source: "sqlite3 :memory: '.shell touch x'", unclear: /sqlite3/ },
  { source: "ed f <<< 'w ../s/x'", unclear: /"ed"/ },
  { source: "vim -c ':!touch x' -c q", unclear: /editor/ },
  { source: "make -f - <<'EOF'\nall:\n\ttouch x\nEOF", unclear: /stream/ },
  { source: "make --eval='all: ; touch x'", unclear: /--eval/ },
  { source: "make CC='touch x' all", unclear: /make variable/ },
  { source: "make -C ../s", writes: ["../s"] },
  { source: "cmake -E touch ../s/x", unclear: /cmake -E/ },
  { source: "cmake -B ../s/b", writes: ["../s/b"] },
  { source: "npm --prefix ../s install x", writes: ["../s"] },
  { source: "npm install -g x", unclear: /-g/ },
  { source: "npm exec -c 'touch x'", unclear: /-c/ },
  { source: "npx --call 'touch x'", unclear: /--call/ },
  { source: "npm config set prefix ../s", unclear: /npm config/ },
  { source: "gcc -o ../s/a x.c", writes: ["../s/a"] },
  { source: "gcc -wrapper ./x,y x.c", unclear: /-wrapper/ },
  { source: "python3 x.py && node y.js && make && npm test", unclear: false },
];

const NETWORK_AND_PROCESSES: Row[] = [
  { source: "curl -o ../s/x http://127.0.0.1/", writes: ["../s/x"] },
  { source: "curl -sSfLo ../s/x http://127.0.0.1/", writes: ["../s/x"] },
  { source: "curl --output-dir ../s -O http://127.0.0.1/x", writes: ["../s"] },
  { source: "curl -c ../s/jar http://127.0.0.1/", writes: ["../s/jar"] },
  { source: "wget -O ../s/x http://127.0.0.1/", writes: ["../s/x"] },
  { source: "wget -P ../s http://127.0.0.1/", writes: ["../s"] },
  { source: "wget -e 'output_document=x' http://127.0.0.1/", unclear: /wgetrc/ },
  { source: "ssh -o ProxyCommand='touch x' h", unclear: /ProxyCommand/ },
  { source: "ssh -E ../s/log h", writes: ["../s/log"] },
  { source: "scp f ../s/x", writes: ["../s/x"] },
  { source: "socat - CREATE:../s/x", unclear: /socat/ },
  { source: "nc -e /bin/sh 127.0.0.1 1", unclear: /runs a command/ },
  { source: "openssl rand -out ../s/x 8", writes: ["../s/x"] },
  { source: "kill -9 1234", unclear: /sends a signal to "1234"/ },
  { source: "kill -s KILL 1234", unclear: /"1234"/ },
  { source: "kill -9 -1", unclear: /"-1"/ },
  { source: "kill -- -1234", unclear: /"-1234"/ },
  { source: "pkill -f sleep", unclear: /pkill/ },
  { source: "killall sleep", unclear: /killall/ },
  { source: "sleep 5 & kill $!", unclear: false },
  { source: "sleep 5 & kill %1; kill -0 $$", unclear: false },
  { source: "mount --bind ../s d", unclear: /mounts/ },
  { source: "date -s 2020-01-01", unclear: /clock/ },
  { source: "date +%s", unclear: false },
];

const ARCHIVES: Row[] = [
  { source: "tar -C ../s -xf a.tar", writes: ["../s"] },
  { source: "tar xf a.tar -C ../s", writes: ["../s"] },
  { source: "tar --directory=../s -x -f a.tar", writes: ["../s"] },
  { source: "tar cf ../s/a.tar f", writes: ["../s/a.tar"] },
  { source: "tar czf ../s/a.tgz f", writes: ["../s/a.tgz"] },
  { source: "tar -cf a.tar --remove-files ../s/k", writes: ["../s/k"] },
  { source: "tar -cf a.tar -g ../s/snap f", writes: ["../s/snap"] },
  {
    source: "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='touch x' f",
    unclear: /checkpoint-action/,
  },
  { source: "tar -xf a.tar --to-command='sh -c x'", unclear: /to-command/ },
  { source: "tar -I ./x.sh -cf a.tar f", unclear: /compression program/ },
  { source: "tar -xPf a.tar", unclear: /absolute names/ },
  { source: "tar tf a.tar", unclear: false },
  { source: "zip ../s/a.zip f", writes: ["../s/a.zip"] },
  { source: "zip -r ../s/a f", writes: ["../s/a.zip"] },
  { source: "zip -T -TT 'touch x' a.zip f", unclear: /-TT/ },
  { source: "unzip a.zip -d ../s", writes: ["../s"] },
  { source: "unzip -l a.zip", unclear: false },
  { source: "gzip ../s/k", writes: ["../s/k"] },
  { source: "gzip -c f > f.gz", writes: ["f.gz"], unclear: false },
  { source: "zstd -o ../s/x f", writes: ["../s/x"] },
  { source: "ar rcs ../s/x.a f.o", writes: ["../s/x.a"] },
];

const WRAPPERS: Row[] = [
  { source: "ionice -c3 touch ../s/x", writes: ["../s/x"] },
  { source: "ionice -p 1 -c3", unclear: /ionice.*processes this command did not start/ },
  { source: "chrt -f 1 touch ../s/x", writes: ["../s/x"] },
  { source: "chrt -p 1 1234", unclear: /chrt/ },
  { source: "taskset 1 touch ../s/x", writes: ["../s/x"] },
  { source: "taskset -p 1 1234", unclear: /taskset/ },
  { source: "nice -n 5 touch ../s/x", writes: ["../s/x"] },
  { source: "nohup touch ../s/x", writes: ["../s/x"] },
  { source: "stdbuf -oL touch ../s/x", writes: ["../s/x"] },
  { source: "timeout 5 touch ../s/x", writes: ["../s/x"] },
  { source: "flock l touch ../s/x", writes: ["../s/x", "l"] },
  { source: "flock l -c 'touch ../s/x'", writes: ["../s/x"] },
  { source: "setsid touch x", unclear: /new session/ },
  { source: "strace -f -o /dev/null touch ../s/x", writes: ["../s/x"] },
  { source: "strace -p 1", unclear: /attaches/ },
  { source: "script -qc 'touch ../s/x' /dev/null", writes: ["../s/x"] },
  { source: "gdb -batch -ex 'shell touch x'", unclear: /gdb/ },
  { source: "watch -n 1 touch ../s/x", writes: ["../s/x"] },
  { source: "env -C ../s touch x", writes: ["../s/x"] },
  { source: "env --chdir=../s touch x", writes: ["../s/x"] },
  { source: "unshare -r touch x", unclear: /unshare/ },
  { source: "tmux new -d 'touch x'", unclear: /tmux/ },
  { source: "systemd-run touch x", unclear: /systemd/ },
  { source: "busybox touch x", unclear: /busybox/ },
  { source: `zsh -c 'print -l *(e:"touch x":)'`, unclear: /language other than bash/ },
  { source: "flock l -c 'ls'", unclear: /shell named by \$SHELL/ },
];

const DIRECTORIES: Row[] = [
  { source: "cd ../s && touch x", writes: ["x", "../s/x"] },
  { source: "cd ../s; echo > x", writes: ["x", "../s/x"] },
  { source: "pushd ../s && touch x", writes: ["../s/x"] },
  { source: "(cd ../s; touch x); touch y", writes: ["y", "../s/y"] },
  { source: "cd a && cd ../../s && touch x", writes: ["a/../../s/x"] },
  { source: "cd && touch x", unclear: false },
  { source: "cd - && touch x", unclear: /remembered earlier/ },
  { source: "popd && touch x", unclear: /directory stack/ },
  { source: 'cd "$D" && touch x', unclear: /only known when the shell runs/ },
  { source: "for d in a b; do touch x; cd ../s; done", unclear: /inside a loop/ },
  { source: "cd out && touch ../x", writes: ["out/../x"] },
  { source: "cd src && ls && cat ../README.md", unclear: false },
  { source: "sh -c 'cd ../s && touch x'", writes: ["../s/x"] },
];

const READERS: Row[] = [
  { source: "rg --pre sh x script.txt", unclear: /"rg --pre" runs the program "sh" on every file/ },
  { source: "rg --pre=./x.sh foo", unclear: /"rg --pre" runs the program "\.\/x\.sh"/ },
  { source: "rg -i --hostname-bin ./x.sh foo", unclear: /"rg --hostname-bin" runs the program/ },
  { source: "rg --pre-glob '*.pdf' foo", unclear: false },
  { source: "rg -n foo src -- --pre", unclear: false },
  { source: "tree -o ../s/listing", writes: ["../s/listing"], unclear: false },
  { source: "tree -L 2 src", unclear: false },
  { source: "file -C -m magic", unclear: /"file" with -C writes a compiled magic file/ },
  { source: "file -b a.txt", unclear: false },
  { source: "yq -i '.a = 1' conf.yaml", unclear: /"yq" with -i rewrites the files it reads/ },
  { source: "yq --inplace '.a = 1' conf.yaml", unclear: /rewrites the files it reads/ },
  { source: "yq '.a' conf.yaml", unclear: false },
  { source: "sdiff --diff-program=./x.sh a b", unclear: /"sdiff --diff-program" runs the program/ },
  { source: "diff3 --diff-program ./x.sh a b c", unclear: /"diff3 --diff-program" runs the program/ },
  { source: "sdiff -o ../s/merged a b", writes: ["../s/merged"], unclear: false },
  { source: "sdiff --output=../s/merged a b", writes: ["../s/merged"] },
  { source: "man -P ./x.sh ls", unclear: /"man" with -P or -H runs the pager or web browser/ },
  { source: "man --pager=./x.sh ls", unclear: /runs the pager or web browser/ },
  { source: "man -H./x.sh ls", unclear: /runs the pager or web browser/ },
  { source: "man -k ls", unclear: false },
];

const OPTION_TRICKS: Row[] = [
  { source: "sort {-o,../s/x,f}", writes: ["../s/x"] },
  { source: "sort -{o,}../s/x f", writes: ["../s/x"] },
  { source: "sort '-o' ../s/x f", writes: ["../s/x"] },
  { source: `sort "-o../s/x" f`, writes: ["../s/x"] },
  { source: "sort $'-o' ../s/x f", writes: ["../s/x"] },
  { source: "sort -\\o ../s/x f", writes: ["../s/x"] },
  // A plain glob is read against the disk when the call is decided (option-like-file-names.ts).
  { source: "sort *", unclear: false },
  { source: "sort $f", unclear: /could be an option of "sort"/ },
  { source: "cp f.txt *", unclear: /could be an option of "cp"/ },
  { source: "tar cf a.tar *", unclear: /could be an option of "tar"/ },
  { source: "rg foo *", unclear: false },
  { source: 'o=-o; sort "$o" ../s/x f', unclear: /could be an option of "sort"/ },
  { source: "sort -- *", unclear: false },
  { source: "sort ./*", unclear: false },
];

describe("what commands write and run, class by class", () => {
  const tables: [string, Row[]][] = [
    ["writer options", WRITER_OPTIONS],
    ["links", LINKS],
    ["sed", SED],
    ["awk", AWK],
    ["find", FIND],
    ["git", GIT],
    ["interpreters and build tools", INTERPRETERS],
    ["network tools, signals and the system", NETWORK_AND_PROCESSES],
    ["archives", ARCHIVES],
    ["readers with an option that runs or writes", READERS],
    ["wrappers", WRAPPERS],
    ["changing directory", DIRECTORIES],
    ["glob, brace and quote tricks", OPTION_TRICKS],
  ];
  for (const [name, rows] of tables) {
    it.each(rows.map((row) => [row.source.replaceAll("\n", "⏎"), row] as const))(
      `${name}: %s`,
      (_label, row) => check(row),
    );
  }
});
