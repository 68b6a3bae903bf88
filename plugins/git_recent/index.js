// git_recent: the last commits of the workspace's repository.
//
// runtime.shell.run(cmd, argv) runs one program (no shell: no pipes, globs or substitutions)
// in the workspace root and resolves to {exit_code, output}. Only commands matching a
// `requires.shell` entry run; `git log --oneline --no-color --no-decorate --max-count=N`
// is the one declared here.

export async function execute(args, runtime) {
  const count = args.count ?? 10;
  const { exit_code, output } = await runtime.shell.run("git", [
    "log",
    "--oneline",
    "--no-color",
    "--no-decorate",
    `--max-count=${count}`,
  ]);
  if (exit_code !== 0) {
    throw new Error(`git log failed (exit code ${exit_code}): ${output.trim().split("\n")[0]}`);
  }
  const commits = output
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const space = line.indexOf(" ");
      return space < 0
        ? { hash: line, subject: "" }
        : { hash: line.slice(0, space), subject: line.slice(space + 1) };
    });
  return { commits };
}
