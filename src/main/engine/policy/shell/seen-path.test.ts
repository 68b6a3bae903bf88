import { afterEach, describe, expect, it } from "vitest";
import { pathOfWord } from "./seen-path.ts";

const word = (text: string) => ({ text, literal: false });
const savedHome = process.env.HOME;

afterEach(() => {
  process.env.HOME = savedHome;
});

// bash starts with Lathe's HOME, so `$HOME/x` names what `~/x` names, and is checked as it.
describe("pathOfWord: $HOME as the home folder", () => {
  it.each([
    ["$HOME/.ssh", "~/.ssh"],
    ["${HOME}/.ssh", "~/.ssh"],
    ['"$HOME/.ssh"', "~/.ssh"],
    ['"${HOME}/my notes"', "~/my notes"],
    ['"$HOME"/.ssh', "~/.ssh"],
    ["$HOME", "~"],
    ['"$HOME"', "~"],
    ["~/.ssh", "~/.ssh"],
  ])("%s is %s", (text, expected) => {
    process.env.HOME = "/home/ann";
    expect(pathOfWord(word(text))).toBe(expected);
  });

  it.each([
    // Another variable, more expansions, a glob or a quote after the home folder.
    "$HOMEDIR/x",
    "${HOME}x",
    "$HOME/$f",
    "$HOME/.ss*",
    "$HOME/'.ssh'",
    '"$HOME/*"',
    "${HOME:-/}x",
    "${HOME%/*}/x",
  ])("%s is only known when the shell runs", (text) => {
    process.env.HOME = "/home/ann";
    expect(pathOfWord(word(text))).toBeUndefined();
  });

  it("an unquoted $HOME that bash would split or glob is only known when the shell runs", () => {
    process.env.HOME = "/home/ann smith";
    expect(pathOfWord(word("$HOME/.ssh"))).toBeUndefined();
    expect(pathOfWord(word('"$HOME/.ssh"'))).toBe("~/.ssh");
    process.env.HOME = "/home/a*";
    expect(pathOfWord(word("${HOME}/.ssh"))).toBeUndefined();
  });
});
