import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { droppedFromTop } from "../state/log-tail.ts";

/** How often an open log is read again, so new lines show up while you watch. */
const POLL_MS = 2000;

/** Within this many pixels of the end, the view counts as following the log's end. */
const AT_END_PX = 4;

/** The lines, each with a number that stays with it while the tail moves on. */
interface Numbered {
  lines: readonly string[];
  first: number;
}

/** Whether `view` shows the end of what it holds. */
function atEndOf(view: HTMLElement): boolean {
  return view.scrollHeight - view.scrollTop - view.clientHeight <= AT_END_PX;
}

/**
 * A log's last lines, read again every two seconds while shown (`refresh`), newest at the bottom.
 * The view follows new lines while the person is at the end; scrolled up, it keeps the line they
 * read where it is, even as old lines fall off the top of the tail.
 */
export function LiveLogView({
  lines,
  refresh,
  label,
  empty,
}: {
  lines: readonly string[];
  refresh: () => Promise<void>;
  label: string;
  /** What the view says while there are no lines. */
  empty: string;
}) {
  const view = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  const [numbered, setNumbered] = useState<Numbered>({ lines, first: 0 });
  if (numbered.lines !== lines) {
    setNumbered({ lines, first: numbered.first + droppedFromTop(numbered.lines, lines) });
  }

  useEffect(() => {
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  // At the end, the view follows new lines. Scrolled up, the browser's scroll anchoring keeps the
  // line the person reads in place: each line is an element that keeps its key (its number) while
  // it stays in the tail, so lines that fall off the top do not move it.
  useLayoutEffect(() => {
    const element = view.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  }, [numbered]);

  const last = numbered.lines.length - 1;
  return (
    <pre
      ref={view}
      className="log-view"
      aria-label={label}
      tabIndex={0}
      onScroll={(event) => (following.current = atEndOf(event.currentTarget))}
    >
      {last < 0
        ? empty
        : numbered.lines.map((text, index) => (
            <span key={numbered.first + index}>{index < last ? `${text}\n` : text}</span>
          ))}
    </pre>
  );
}
