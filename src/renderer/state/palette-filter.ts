/** A command in the palette: what it says, what group it is in, and what it does. */
export interface PaletteCommand {
  id: string;
  label: string;
  group: string;
  /** Shown at the right (a time, a path). */
  detail?: string;
  run(): void;
}

/**
 * The commands whose label (or group) contains every word typed, any case, in the order given;
 * those whose label starts with the query come first.
 */
export function filterCommands<T extends Pick<PaletteCommand, "label" | "group">>(
  commands: readonly T[],
  query: string,
): T[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...commands];
  const q = query.trim().toLowerCase();
  const matching = commands.filter((c) => {
    const haystack = `${c.group} ${c.label}`.toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
  return [
    ...matching.filter((c) => c.label.toLowerCase().startsWith(q)),
    ...matching.filter((c) => !c.label.toLowerCase().startsWith(q)),
  ];
}
