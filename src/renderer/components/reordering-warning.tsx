/**
 * Said above text a person decides on when it held characters that reorder how the text around
 * them is displayed (U+202E and the like): they are shown as escapes there, and why that matters.
 */
export function ReorderingWarning({ what }: { what: string }) {
  return (
    <p className="field-error" role="note" aria-label="Hidden reordering">
      {what} holds characters that change the order in which text is displayed (such as U+202E, right-to-left
      override), which can make it read as something else. Each is shown here as its escape, like{" "}
      <code>\u202e</code>.
    </p>
  );
}
