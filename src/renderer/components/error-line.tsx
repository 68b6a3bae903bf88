/** A failure said in red where it happened (announced to screen readers), or nothing. */
export function ErrorLine({ message }: { message: string | undefined | null }) {
  return message ? (
    <p role="alert" className="field-error">
      {message}
    </p>
  ) : null;
}
