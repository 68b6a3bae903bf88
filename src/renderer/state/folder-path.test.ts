import { describe, expect, it } from "vitest";
import { folderName, folderParent } from "./folder-path.ts";

describe("a project folder's name and the folder it sits in", () => {
  it.each([
    ["/home/anna/work/lathe-workbench-demo", "lathe-workbench-demo", "/home/anna/work"],
    ["/home/anna/work/billing/", "billing", "/home/anna/work"],
    ["/srv", "srv", "/"],
    ["/", "/", ""],
    ["C:\\Users\\anna\\billing", "billing", "C:\\Users\\anna"],
    ["C:\\billing", "billing", "C:\\"],
    ["C:\\", "C:", ""],
  ])("%s is %s in %s", (root, name, parent) => {
    expect(folderName(root)).toBe(name);
    expect(folderParent(root)).toBe(parent);
  });
});
