import { describe, expect, it } from "vitest";
import {
  listerDepth,
  listerFollowsGivenLinks,
  listerFollowsLinks,
  listsItsFolder,
  listsWholeFolders,
  printsOnlyTotals,
} from "./folder-listers.ts";

// Which listers walk below the folders they are given, which walk the one they run in (given
// none), and which follow every link they meet: what the sandbox-off check holds them to.
describe("folder listers", () => {
  it.each([
    ["find", "", true, true],
    ["find", "-name tok*", true, true],
    ["find", "-L -name x", true, true],
    ["find", "-D tree -name x", true, true],
    ["find", "( -name a -o -name b )", true, true],
    ["find", ". -name x", true, false],
    ["find", "-L src", true, false],
    ["find", "src -maxdepth 0", false, false],
    ["ls", "-la", false, false],
    ["ls", "-R", true, true],
    ["ls", "-laR", true, true],
    ["ls", "--recursive -I x", true, true],
    ["ls", "-R -w 80", true, true],
    ["ls", "-R src", true, false],
    ["du", "", true, true],
    ["du", "-a", true, true],
    ["du", "-a -d 2", true, true],
    ["du", "-ab --max-depth 2", true, true],
    ["du", "-a src", true, false],
    ["du", "-sh .", false, false],
    ["du", "-sh --exclude=id_rsa .", true, false],
    ["du", "-s -X names .", true, false],
    ["du", "-d 0 .", false, false],
    ["du", "-s --inodes .", false, false],
    ["du", "-s --time .", true, false],
    ["du", "-s --time=atime .", true, false],
    ["du", "-d0", false, false],
    ["du", "--max-depth=0", false, false],
    ["tree", "", true, true],
    ["tree", "-L 2", true, true],
    ["tree", "-a -I node_modules", true, true],
    ["tree", "-L 2 src", true, false],
    ["cat", "-R", false, false],
  ])("%s %s: walks %s, its own folder %s", (program, args, walks, own) => {
    const words = args === "" ? [] : args.split(" ");
    expect(listsWholeFolders(program, words)).toBe(walks);
    if (walks) expect(listsItsFolder(program, words)).toBe(own);
  });

  it.each([
    ["find", "-L .", "-L"],
    ["find", ". -follow -name x", "-follow"],
    ["find", "-H .", undefined],
    ["find", ". -name L", undefined],
    ["ls", "-RL", "-RL"],
    ["ls", "-R --dereference", "--dereference"],
    ["ls", "-R -l", undefined],
    ["du", "-aL", "-aL"],
    ["du", "-a -D", undefined],
    ["tree", "-a -l", "-l"],
    ["tree", "-L 2", undefined],
  ])("%s %s follows every link with %s", (program, args, option) => {
    expect(listerFollowsLinks(program, args.split(" "))).toBe(option);
  });

  it.each([
    ["find", "homelink", false],
    ["find", "-H homelink", true],
    ["find", "homelink -follow", true],
    ["du", "-a homelink", false],
    ["du", "-aD homelink", true],
    ["du", "--dereference-args homelink", true],
    ["du", "--dereference-a homelink", true],
    ["du", "--dereference-ar homelink", true],
    ["du", "--dereference homelink", true],
    ["du", "--no-dereference homelink", false],
    ["ls", "-R homelink", true],
    ["tree", "homelink", true],
  ])("%s %s follows a link it is given: %s", (program, args, follows) => {
    expect(listerFollowsGivenLinks(program, args.split(" "))).toBe(follows);
  });

  // How deep a lister prints names: a denyRead folder at that level or deeper shows at most its
  // own name (du: and its total). An unusual spelling, or du told to exclude names, counts as no limit.
  it.each([
    ["find", ". -maxdepth 1", 1],
    ["find", "-maxdepth 2 -name x", 2],
    ["find", ". -maxdepth 1 -maxdepth 3", 3],
    ["find", ". -name x", undefined],
    ["find", ". -maxdepth 0x1", undefined],
    ["find", ". -maxdepth", undefined],
    ["tree", "-L 1", 1],
    ["tree", "-a -L 2 src", 2],
    ["tree", "-R -L 1", undefined],
    ["tree", "-aR -L 1", undefined],
    ["tree", "-L3", undefined],
    ["tree", "", undefined],
    ["du", "-d 1 .", 1],
    ["du", "-d1", 1],
    ["du", "-ahd 1 .", 1],
    ["du", "-ahd2", 2],
    ["du", "--max-depth=1", 1],
    ["du", "--max-depth 2 src", 2],
    ["du", "-sh .", 0],
    ["du", "-sh -d 1 .", 1],
    ["du", "-a .", undefined],
    ["du", "-d x .", undefined],
    ["du", "--max-depth=1x", undefined],
    // A total that tells which names are inside (an excluded name makes it smaller).
    ["du", "-d 1 --exclude=id_rsa .", undefined],
    ["du", "-d 1 --exclude id_rsa .", undefined],
    ["du", "-sh --exclude-from=names .", undefined],
    ["du", "-shX names .", undefined],
    // A file count is a sum, as a size is; the newest time below a folder is not.
    ["du", "-d 1 --inodes .", 1],
    ["du", "-s --inodes .", 0],
    ["du", "-d 1 --time .", undefined],
    ["du", "-d 1 --time=atime --time-style=iso .", undefined],
    ["du", "-s --time .", undefined],
    ["du", "-d 1 --time-style=iso .", 1],
    ["ls", "-R", undefined],
  ])("%s %s prints names %s levels deep at most", (program, args, depth) => {
    expect(listerDepth(program, args === "" ? [] : args.split(" "))).toBe(depth);
  });

  // du -s prints one total per path given (a denyRead folder named itself may be), unless the
  // total tells more than a sum (--time, --exclude) or counts where links inside lead (-L).
  it.each([
    ["du", "-s private", true],
    ["du", "-sh *", true],
    ["du", "-d 0 -k x", true],
    ["du", "--summarize --inodes x", true],
    ["du", "-sH link", true],
    ["du", "-sL x", false],
    ["du", "-s --dereference x", false],
    ["du", "-s --time x", false],
    ["du", "-s --exclude=id_rsa x", false],
    ["du", "-sX names x", false],
    ["du", "-d 1 x", false],
    ["du", "x", false],
    ["find", "x -maxdepth 0", false],
    ["ls", "-ld x", false],
  ])("%s %s prints only totals: %s", (program, args, totals) => {
    expect(printsOnlyTotals(program, args.split(" "))).toBe(totals);
  });
});
