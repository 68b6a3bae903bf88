import { describe, expect, it } from "vitest";
import { analyzeShell } from "./shell-analysis.ts";

/**
 * Constructs whose meaning depends on a value only known at run time must make the analysis
 * opaque (a person decides); their harmless neighbours must not, or the product stops being usable.
 */

type Row = readonly [source: string, opaque: RegExp | false];

function check([source, expected]: Row): void {
  const result = analyzeShell(source);
  if (expected === false) {
    expect(result.opaque, source).toEqual([]);
  } else {
    expect(
      result.opaque.some((reason) => expected.test(reason)),
      `${source}: a reason matching ${expected} in ${JSON.stringify(result.opaque)}`,
    ).toBe(true);
  }
}

const ARITHMETIC: Row[] = [
  // The issue's own spellings.
  [`echo $[ x='a[$(touch OUT)]', x ]`, /quoted text .*inside arithmetic/],
  [
    `x='a[$(touch OUT)]'; echo $((x))`,
    /"\$\(\(x\)\)" reads the variable "x", which this command sets to something other than a plain number \(x='a\[\$\(touch OUT\)\]'\)/,
  ],
  [`declare -i y; y='a[$(touch OUT)]'`, /"declare -i" gives variables the integer attribute/],
  [`x='a[$(touch OUT)]'; [[ $x -eq 1 ]]`, /the test "\[\[ \$x -eq 1 \]\]" reads the variable "x"/],
  [`x='a[$(touch OUT)]'; let x`, /"let x" reads the variable "x"/],
  [`read -r x <<< 'a[$(touch OUT)]'; echo $((x))`, /reads the variable "x", .*\(read x\)/],
  // More places bash evaluates a value as arithmetic.
  [`x='a[$(touch O)]'; (( x ))`, /arithmetic "\(\( x \)\)" reads the variable "x"/],
  [`x='a[$(touch O)]'; for ((i=x; i<1; i++)); do :; done`, /loop header .* reads the variable "x"/],
  [
    `x='a[$(touch O)]'; arr=(1 2); echo \${arr[x]}`,
    /subscript or offset in "\$\{arr\[x\]\}" reads the variable "x"/,
  ],
  [`x='a[$(touch O)]'; s=abc; echo \${s:x}`, /subscript or offset in "\$\{s:x\}" reads the variable "x"/],
  [`x='a[$(touch O)]'; arr[x]=1`, /subscript in "arr\[x\]=1" reads the variable "x"/],
  [`x='a[$(touch O)]'; [[ x -eq 0 ]]`, /reads the variable "x"/],
  [`x='a[$(touch O)]'; [[ -v a[x] ]]`, /reads the variable "x"/],
  [`for i in 'a[$(touch O)]'; do echo $((i)); done`, /reads the variable "i", .*\(for i in …\)/],
  [`set -- 'a[$(touch O)]'; echo $(( $1 ))`, /contains "\$1"/],
  [`echo $(( $(cat n) + 1 ))`, /command substitution "\$\(cat n\)"/],
  [`typeset -i n; n=5`, /"typeset -i" gives variables the integer attribute/],
  [`local -i n=1`, /"local -i"/],
  [`read 'a[$(touch O)]' <<< 1`, /subscript of "a\[\$\(touch O\)\]" contains/],
  [`printf -v 'a[$(touch O)]' 1`, /subscript of "a\[\$\(touch O\)\]"/],
  [`declare 'a[$(touch O)]=1'`, /subscript of "a\[\$\(touch O\)\]"/],
  [`test -v 'a[$(touch O)]'`, /subscript of "a\[\$\(touch O\)\]"/],
  [`[[ -v $name ]]`, /variable name "\$name", which is only known/],
  [`let 'a[$(touch O)]'`, /"let a\[\$\(touch O\)\]" contains/],
  [`x=$(cat f); echo $((x + 1))`, /reads the variable "x".*\(x=\$\(cat f\)\)/],
  [`mapfile -t lines < f; echo $(( lines ))`, /reads the variable "lines"/],
  [`: \${n:=abc}; echo $((n))`, /reads the variable "n"/],
  [`x='a[$(touch O)]' bash -c 'echo $((x))'`, /reads the variable "x"/],
  // Harmless: numbers, numeric variables, variables the command never sets.
  [`echo $((1 + 2 * 3)) $((16#ff)) $((0x1f)) $[ 4 / 2 ]`, false],
  [`i=0; while [ $i -lt 3 ]; do i=$((i+1)); done`, false],
  [`for ((i=0; i<3; i++)); do echo $i; done`, false],
  [`for i in 1 2 3; do echo $((i * 2)); done`, false],
  [`for i in {1..5}; do echo $((i * 2)); done`, false],
  [`echo $(( $# + \${#HOME} + $? ))`, false],
  [`n=5; [[ $n -gt 3 ]] && echo big`, false],
  [`arr=(a b c); echo \${arr[1]} \${arr[@]} \${#arr[@]} \${!arr[@]}`, false],
  [`echo $((LINES + COLUMNS))`, false],
  [`let n=1+2`, false],
];

const PROMPT_AND_INDIRECT: Row[] = [
  [`x='$(touch O)'; echo \${x@P}`, /expands the value as a prompt string/],
  [`name=PATH; echo \${!name}`, /indirection/],
  [`declare -n ref='a[$(touch O)]'; echo $ref`, /"declare -n" makes a name refer to another variable/],
  [`p='\\$(touch O)'; PS4=$p; set -x; :`, /setting PS4/],
  [`echo \${!PATH*} \${!arr[@]} \${x@Q} \${x@U}`, false],
];

const CODE_BUILTINS: Row[] = [
  [`hash -p /tmp/evil ls; ls`, /"hash -p" binds a command name/],
  [`enable -f ./x.so cat`, /"enable -f" loads a builtin/],
  [`enable -n echo; echo hi`, /turns shell builtins on or off/],
  [`trap 'touch O' EXIT`, /"trap" sets shell code to run later/],
  [`trap "$CODE" DEBUG`, /sets the handler "\$CODE"/],
  [`alias ls='touch O'`, /defines "ls" as an alias/],
  [`f() { touch O; }; f`, /defines the function "f"/],
  [`compgen -C 'touch O' x`, /"compgen -C\/-F" runs a command/],
  [`complete -F f ls`, /"complete -C\/-F"/],
  [`mapfile -C 'touch O' -c 1 arr < f`, /"mapfile -C" runs a callback/],
  [`fc -s`, /"fc" runs commands again/],
  [`set -o history; history -w ../out`, /"history" with options/],
  [`bind -x '"a": touch O'`, /"bind -x"/],
  [`eval "$CMD"`, /"eval" runs its arguments/],
  [`source ./x.sh`, /runs the script "\.\/x\.sh"/],
  [`trap - EXIT; trap -p; hash; enable; history`, false],
];

const VARIABLES: Row[] = [
  [`PATH=.:$PATH ls`, /setting PATH/],
  [`read PATH <<< /tmp/evil; ls`, /setting PATH/],
  [`printf -v PATH %s /tmp; ls`, /setting PATH/],
  [`for PATH in /tmp; do ls; done`, /setting PATH/],
  [`declare -x "PATH=/tmp"`, /setting PATH/],
  [`export BASH_ENV=./x.sh; bash -c true`, /setting BASH_ENV/],
  [`ENV=./x.sh sh -c true`, /setting ENV/],
  [`PROMPT_COMMAND='touch O' bash -i`, /setting PROMPT_COMMAND/],
  [`IFS=/; read -r a b <<< x/y`, /setting IFS/],
  [`IFS=_ c="touch_x"; $c`, /setting IFS/],
  [`GLOBIGNORE='*'; rm *`, /setting GLOBIGNORE/],
  [`SHELLOPTS=xtrace bash -c true`, /setting SHELLOPTS/],
  [`BASHOPTS=extglob bash -c true`, /setting BASHOPTS/],
  [`CDPATH=.. cd sentinel`, /setting CDPATH/],
  [`HOME=. git status`, /setting HOME/],
  [`TMPDIR=../x sort big`, /setting TMPDIR/],
  [`GIT_DIR=../x/.git git status`, /setting GIT_DIR/],
  [`GIT_TRACE=/tmp/t git status`, /setting GIT_TRACE/],
  [`GIT_CONFIG_GLOBAL=./evil git status`, /setting GIT_CONFIG_GLOBAL/],
  [`env GIT_WORK_TREE=../x git checkout .`, /setting GIT_WORK_TREE/],
  [`GIT_EDITOR='touch O' git commit`, /GIT_EDITOR is set to "touch O"/],
  [`XDG_CONFIG_HOME=. git status`, /setting XDG_CONFIG_HOME/],
  [`npm_config_prefix=../x npm i`, /setting npm_config_prefix/],
  [`PYTHONPATH=. python3 x.py`, /setting PYTHONPATH/],
  [`MAKEFILES=evil.mk make`, /setting MAKEFILES/],
  [`X=1 Y=two ls; GIT_AUTHOR_NAME=me git commit -m x; LANG=C sort f`, false],
  // IFS in front of read changes only how that read splits its line.
  [`while IFS= read -r line; do echo "$line"; done < f; IFS=: read -ra parts <<< "$PATH"`, false],
];

describe("constructs whose meaning depends on a run-time value", () => {
  it.each(ARITHMETIC.map((row) => [row[0], row] as const))("arithmetic: %s", (_label, row) => check(row));
  it.each(PROMPT_AND_INDIRECT.map((row) => [row[0], row] as const))(
    "prompt and indirect expansion: %s",
    (_label, row) => check(row),
  );
  it.each(CODE_BUILTINS.map((row) => [row[0], row] as const))("builtins that run code: %s", (_label, row) =>
    check(row),
  );
  it.each(VARIABLES.map((row) => [row[0], row] as const))(
    "variables that change what runs: %s",
    (_label, row) => check(row),
  );
});
