import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentTypeFor, lookupStaticFile } from "./static-files.ts";

let base: string;
let root: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-static-")));
  root = path.join(base, "renderer");
  await mkdir(path.join(root, "assets"), { recursive: true });
  await writeFile(path.join(root, "index.html"), "<!doctype html>");
  await writeFile(path.join(root, "assets", "app.js"), "console.log(1)");
  await writeFile(path.join(base, "secret.txt"), "top secret");
  await mkdir(path.join(base, "renderer-evil"));
  await writeFile(path.join(base, "renderer-evil", "x.js"), "evil");
  await symlink(path.join(base, "secret.txt"), path.join(root, "link-out.txt"));
  await symlink(path.join(base, "missing.txt"), path.join(root, "dangling.txt"));
  await symlink(base, path.join(root, "dir-out"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("lookupStaticFile", () => {
  it("serves index.html for / and files under the folder", async () => {
    expect(await lookupStaticFile(root, "/")).toEqual({ status: 200, file: path.join(root, "index.html") });
    expect(await lookupStaticFile(root, "/assets/app.js")).toEqual({
      status: 200,
      file: path.join(root, "assets", "app.js"),
    });
  });

  it.each([
    { name: "a missing file", urlPath: "/nope.js", status: 404 },
    { name: "a folder", urlPath: "/assets", status: 404 },
    { name: "encoded parent segments", urlPath: "/..%2f..%2fsecret.txt", status: 404 },
    { name: "encoded parent to the folder", urlPath: "/..%2fsecret.txt", status: 404 },
    { name: "raw parent segments", urlPath: "/../secret.txt", status: 404 },
    { name: "a sibling sharing the folder's name", urlPath: "/..%2frenderer-evil%2fx.js", status: 404 },
    { name: "an absolute path", urlPath: "/%2fetc%2fpasswd", status: 404 },
    { name: "a backslash", urlPath: "/..%5csecret.txt", status: 400 },
    { name: "a NUL byte", urlPath: "/index.html%00.js", status: 400 },
    { name: "broken percent-encoding", urlPath: "/%E0%A4%A", status: 400 },
    { name: "a symlink to a file outside", urlPath: "/link-out.txt", status: 404 },
    { name: "a dangling symlink", urlPath: "/dangling.txt", status: 404 },
    { name: "a symlinked folder outside", urlPath: "/dir-out/secret.txt", status: 404 },
    {
      name: "/proc through the root",
      urlPath: "/..%2f..%2f..%2f..%2f..%2fproc%2fself%2fenviron",
      status: 404,
    },
  ])("refuses $name", async ({ urlPath, status }) => {
    expect(await lookupStaticFile(root, urlPath)).toEqual({ status });
  });
});

describe("contentTypeFor", () => {
  it.each([
    ["index.html", "text/html; charset=utf-8"],
    ["a/b.js", "text/javascript; charset=utf-8"],
    ["style.CSS", "text/css; charset=utf-8"],
    ["icon.svg", "image/svg+xml"],
    ["blob.bin", "application/octet-stream"],
  ])("%s → %s", (file, type) => {
    expect(contentTypeFor(file)).toBe(type);
  });
});
