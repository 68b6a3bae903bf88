import { Terminal } from "@xterm/xterm";
import { useEffect, useRef } from "react";

const FONT_SIZE = 12;
const FONT_FAMILY = 'ui-monospace, "SFMono-Regular", "JetBrains Mono", Menlo, Consolas, monospace';
const MAX_ROWS = 20;

/** How many columns of the terminal's font fit in `width` pixels. */
function columnsFor(width: number): number {
  const context = document.createElement("canvas").getContext("2d");
  let cell = FONT_SIZE * 0.6;
  if (context) {
    context.font = `${FONT_SIZE}px ${FONT_FAMILY}`;
    cell = context.measureText("MMMMMMMMMM").width / 10 || cell;
  }
  return Math.max(20, Math.min(400, Math.floor((width - 16) / cell)));
}

/** The colours of the page's theme, so the terminal sits in the card instead of a black box. */
function themeOf(element: HTMLElement): { background: string; foreground: string; cursor: string } {
  const style = getComputedStyle(element);
  const background = style.getPropertyValue("--code-bg").trim() || "#f1f3f6";
  const foreground = style.getPropertyValue("--text").trim() || "#1d2129";
  return { background, foreground, cursor: background };
}

/**
 * A command's output in a read-only xterm.js terminal (colours and control sequences as a
 * terminal shows them; nothing can be typed, and Tab passes through). Tall output scrolls inside
 * it, starting at the end.
 */
export function TerminalOutput({ text, label }: { text: string; label: string }) {
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const cols = columnsFor(element.clientWidth || 640);
    const terminal = new Terminal({
      disableStdin: true,
      convertEol: true,
      cursorBlink: false,
      cursorInactiveStyle: "none",
      // One row to start; once written, as many as the output takes (a long line wraps over several).
      rows: 1,
      cols,
      fontSize: FONT_SIZE,
      fontFamily: FONT_FAMILY,
      scrollback: 10_000,
      theme: themeOf(element),
    });
    terminal.open(element);
    // Nothing is typed here, so Tab and Shift+Tab are not the terminal's: they move the keyboard
    // on through the page as everywhere else (xterm.js kept them, and Tab could not leave).
    terminal.attachCustomKeyEventHandler((event) => event.key !== "Tab");
    // Hide the cursor: this terminal only shows what a command printed.
    terminal.write(`\x1b[?25l${text.replace(/\r?\n$/, "")}`, () => {
      const rows = terminal.buffer.active.length;
      terminal.resize(cols, Math.max(1, Math.min(MAX_ROWS, rows)));
      terminal.scrollToBottom();
    });
    // Follow the page between light and dark.
    const scheme = window.matchMedia("(prefers-color-scheme: dark)");
    const retheme = () => {
      terminal.options.theme = themeOf(element);
    };
    scheme.addEventListener("change", retheme);
    return () => {
      scheme.removeEventListener("change", retheme);
      terminal.dispose();
    };
  }, [text]);

  return <div ref={host} className="terminal-output" role="region" aria-label={label} />;
}
