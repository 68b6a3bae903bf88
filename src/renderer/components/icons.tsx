// The app's icons: small stroked SVG paths (no icon font, no emoji: they look the same on every
// machine). Purely decorative; the control next to each says what it does in words.

const PATHS = {
  chat: "M4 5h16v10H8l-4 4z",
  tools: "M14.7 6.3a4 4 0 0 0-5.4 5.4L4 17l3 3 5.3-5.3a4 4 0 0 0 5.4-5.4l-2.4 2.4-2.6-.4-.4-2.6z",
  extensions:
    "M9 4h4v3a2 2 0 1 0 4 0V4h3v6h-3a2 2 0 1 0 0 4h3v6h-6v-3a2 2 0 1 0-4 0v3H4v-6h3a2 2 0 1 0 0-4H4V4z",
  settings:
    "M12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6zm8 3-2-.6-.5-1.3 1-1.8-1.8-1.8-1.8 1-1.3-.5L13 4h-2l-.6 2-1.3.5-1.8-1-1.8 1.8 1 1.8-.5 1.3L4 11v2l2 .6.5 1.3-1 1.8 1.8 1.8 1.8-1 1.3.5.6 2h2l.6-2 1.3-.5 1.8 1 1.8-1.8-1-1.8.5-1.3 2-.6z",
  folder: "M3 6h6l2 2h10v11H3z",
  search: "M11 5a6 6 0 1 0 0 12 6 6 0 0 0 0-12zm9 15-4.5-4.5",
  plus: "M12 5v14M5 12h14",
  trash: "M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13",
  pencil: "M4 20h4L19 9l-4-4L4 16zM14 6l4 4",
  stop: "M7 7h10v10H7z",
  chevron: "M9 6l6 6-6 6",
  command: "M9 6a3 3 0 1 0-3 3h12a3 3 0 1 0-3-3v12a3 3 0 1 0 3-3H6a3 3 0 1 0 3 3z",
  read: "M6 3h8l4 4v14H6zM14 3v4h4M9 12h6M9 16h6",
  edit: "M4 20h4L19 9l-4-4L4 16zM14 6l4 4",
  execute: "M4 5h16v14H4zM7 9l3 3-3 3M12 15h5",
  fetch: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM3 12h18M12 3c3 3 3 15 0 18M12 3c-3 3-3 15 0 18",
  think: "M9 18h6M10 21h4M12 3a6 6 0 0 0-3.5 10.9V16h7v-2.1A6 6 0 0 0 12 3z",
  other: "M12 8v8M8 12h8M5 5h14v14H5z",
  task: "M4 6h10M4 12h10M4 18h6M17 10l2 2 3-4",
  check: "M5 12l5 5 9-10",
  lock: "M7 11V8a5 5 0 0 1 10 0v3M5 11h14v10H5z",
  audit: "M12 3l7 3v6c0 4.5-3 7.5-7 9-4-1.5-7-4.5-7-9V6zM9 12l2 2 4-4",
  undo: "M9 14 4 9l5-5M4 9h10a6 6 0 0 1 0 12h-3",
  rewind: "M11 6 5 12l6 6zM19 6l-6 6 6 6z",
  refresh: "M20 11a8 8 0 1 0-2.3 5.7M20 5v6h-6",
  model: "M12 3l8 4.5v9L12 21l-8-4.5v-9zM12 12l8-4.5M12 12v9M12 12 4 7.5",
  shield: "M12 3l7 3v6c0 4.5-3 7.5-7 9-4-1.5-7-4.5-7-9V6z",
  warning: "M12 4 2.5 20h19zM12 10v4M12 17v.5",
  x: "M6 6l12 12M18 6 6 18",
  menu: "M4 6h16M4 12h16M4 18h16",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg
      className={className ? `icon ${className}` : "icon"}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
