import { describe, expect, it } from "vitest";
import { isAllowedOrigin, isTrustedSender } from "./sender-check.ts";

const built = "file:///opt/Lathe/resources/app.asar/out/renderer/index.html";
const dev = "http://localhost:5173/";

describe("isTrustedSender", () => {
  it.each([
    { name: "the built page", frameUrl: built, rendererUrl: built, isMainFrame: true, trusted: true },
    {
      name: "the built page with a hash",
      frameUrl: `${built}#/tools`,
      rendererUrl: built,
      isMainFrame: true,
      trusted: true,
    },
    {
      name: "the dev server page",
      frameUrl: "http://localhost:5173/index.html",
      rendererUrl: dev,
      isMainFrame: true,
      trusted: true,
    },
    {
      name: "a subframe of our page",
      frameUrl: built,
      rendererUrl: built,
      isMainFrame: false,
      trusted: false,
    },
    {
      name: "another local file",
      frameUrl: "file:///tmp/evil.html",
      rendererUrl: built,
      isMainFrame: true,
      trusted: false,
    },
    {
      name: "a remote page",
      frameUrl: "https://example.com/",
      rendererUrl: built,
      isMainFrame: true,
      trusted: false,
    },
    {
      name: "another dev port",
      frameUrl: "http://localhost:5174/",
      rendererUrl: dev,
      isMainFrame: true,
      trusted: false,
    },
    { name: "a file page in dev", frameUrl: built, rendererUrl: dev, isMainFrame: true, trusted: false },
    {
      name: "a look-alike host",
      frameUrl: "http://localhost.evil.com:5173/",
      rendererUrl: dev,
      isMainFrame: true,
      trusted: false,
    },
    { name: "a closed frame", frameUrl: undefined, rendererUrl: built, isMainFrame: true, trusted: false },
    { name: "about:blank", frameUrl: "about:blank", rendererUrl: built, isMainFrame: true, trusted: false },
    {
      name: "a data: page",
      frameUrl: "data:text/html,<p>hi</p>",
      rendererUrl: built,
      isMainFrame: true,
      trusted: false,
    },
    { name: "garbage", frameUrl: "not a url", rendererUrl: built, isMainFrame: true, trusted: false },
  ])("$name → trusted: $trusted", ({ frameUrl, rendererUrl, isMainFrame, trusted }) => {
    expect(isTrustedSender({ frameUrl, rendererUrl, isMainFrame })).toBe(trusted);
  });
});

describe("isAllowedOrigin", () => {
  const own = "http://127.0.0.1:5123";
  it.each([
    { origin: own, allowed: true },
    { origin: undefined, allowed: false },
    { origin: "", allowed: false },
    { origin: "null", allowed: false },
    { origin: "http://127.0.0.1:5124", allowed: false },
    { origin: "http://localhost:5123", allowed: false },
    { origin: "https://127.0.0.1:5123", allowed: false },
    { origin: "http://127.0.0.1:5123/", allowed: false },
    { origin: "http://127.0.0.1:5123.evil.com", allowed: false },
    { origin: "http://evil.com", allowed: false },
    { origin: "HTTP://127.0.0.1:5123", allowed: false },
  ])("$origin → allowed: $allowed", ({ origin, allowed }) => {
    expect(isAllowedOrigin(origin, own)).toBe(allowed);
  });
});
