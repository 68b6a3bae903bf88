import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveLatheHome } from "./lathe-home.ts";

describe("resolveLatheHome", () => {
  const appData = path.resolve("/home/me/.config/Lathe");
  it.each([
    { env: {}, fallback: undefined, expected: path.join(os.homedir(), ".lathe") },
    { env: { LATHE_HOME: "" }, fallback: undefined, expected: path.join(os.homedir(), ".lathe") },
    { env: { LATHE_HOME: "   " }, fallback: appData, expected: appData },
    { env: {}, fallback: appData, expected: appData },
    { env: { LATHE_HOME: "/srv/lathe" }, fallback: appData, expected: path.resolve("/srv/lathe") },
    { env: { LATHE_HOME: " /srv/lathe " }, fallback: undefined, expected: path.resolve("/srv/lathe") },
    { env: { LATHE_HOME: "rel/home" }, fallback: appData, expected: path.resolve("rel/home") },
  ])("LATHE_HOME=$env.LATHE_HOME, fallback $fallback → $expected", ({ env, fallback, expected }) => {
    expect(resolveLatheHome(env, fallback)).toBe(expected);
  });
});
