import { useEffect, useRef } from "react";
import { useExtensions } from "../state/extensions-context.tsx";
import type { McpFormField } from "../state/mcp-form.ts";
import { ErrorLine } from "./error-line.tsx";
import { focusIsLost, focusViewStart } from "../use-focus-view.ts";
import { useReturnFocus } from "./use-return-focus.ts";

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="field-error" role="alert">
      {message}
    </p>
  );
}

/** The exact command, shown before the server is saved and first started; nothing runs until confirmed. */
function Confirmation() {
  const form = useExtensions((s) => s.form);
  const confirm = useExtensions((s) => s.confirm);
  const back = useExtensions((s) => s.back);
  const heading = useRef<HTMLHeadingElement>(null);
  const commandLine = form?.confirm?.commandLine;

  useEffect(() => {
    if (commandLine !== undefined) heading.current?.focus();
  }, [commandLine]);

  if (!form?.confirm) return null;
  const stdio = form.draft.transport === "stdio";
  const adding = form.draft.mode === "add";
  return (
    <div className="mcp-confirm" role="group" aria-labelledby="mcp-confirm-title">
      <h3 id="mcp-confirm-title" ref={heading} tabIndex={-1}>
        {stdio
          ? "Lathe will start this server with exactly this command"
          : "Lathe will connect to exactly this server"}
      </h3>
      <pre className="command-line" aria-label="Command to run">
        {form.confirm.commandLine}
      </pre>
      <p className="muted">
        {stdio
          ? "It runs as you, with your login shell's PATH, every time Lathe opens this folder. Add only commands you trust."
          : "Header values are not shown; they are sent with every request."}
      </p>
      <div className="row-actions">
        <button type="button" className="run" disabled={form.busy} onClick={() => void confirm()}>
          {form.busy ? "Saving…" : adding ? "Add and start" : "Save and restart"}
        </button>
        <button type="button" disabled={form.busy} onClick={back}>
          Back
        </button>
      </div>
    </div>
  );
}

/**
 * Add or edit a server in the user's settings: a command (stdio) or a URL (Streamable HTTP). Esc
 * goes back from the review, and otherwise cancels the form.
 */
export function McpServerFormView() {
  const form = useExtensions((s) => s.form);
  const edit = useExtensions((s) => s.editDraft);
  const review = useExtensions((s) => s.review);
  const close = useExtensions((s) => s.closeForm);
  const back = useExtensions((s) => s.back);
  const first = useRef<HTMLInputElement>(null);
  const reviewButton = useRef<HTMLButtonElement>(null);
  const mode = form?.draft.mode;
  const reviewing = form?.confirm !== undefined;

  useEffect(() => {
    if (mode) first.current?.focus();
  }, [mode]);
  // Back from the review (Back, Esc), the keyboard goes to Review command, which led there: the
  // review's own buttons went with it.
  const wasReviewing = useRef(reviewing);
  useEffect(() => {
    if (wasReviewing.current && !reviewing && focusIsLost()) reviewButton.current?.focus();
    wasReviewing.current = reviewing;
  }, [reviewing]);
  // Closed (Cancel, or saved), the form gives the keyboard back to Add server or the server's Edit,
  // or, when that went with it (a renamed server's row), to the top of the view.
  useReturnFocus(form !== undefined, () => focusViewStart("extensions"));

  if (!form) return null;
  const { draft, errors } = form;
  const locked = form.busy || form.confirm !== undefined;
  const title = draft.mode === "add" ? "Add an MCP server" : `Edit MCP server ${draft.name}`;
  const described = (field: McpFormField) =>
    errors[field] ? { "aria-describedby": `mcp-${field}-error` } : {};

  return (
    <form
      className="mcp-form"
      aria-label={title}
      onSubmit={(event) => {
        event.preventDefault();
        void review();
      }}
      // Esc leaves the step on screen as its buttons do (Back from the review, else Cancel, which
      // drops the edits), as Esc leaves the session's rename field and the app's dialogs; not
      // while it saves.
      onKeyDown={(event) => {
        if (event.key !== "Escape" || form.busy) return;
        event.preventDefault();
        event.stopPropagation();
        if (form.confirm) back();
        else close();
      }}
    >
      <h3>{title}</h3>
      <label htmlFor="mcp-name">Name</label>
      <input
        id="mcp-name"
        ref={first}
        value={draft.name}
        readOnly={draft.mode === "edit"}
        disabled={locked}
        aria-invalid={errors.name !== undefined}
        {...described("name")}
        onChange={(event) => edit({ name: event.target.value })}
        placeholder="e.g. files"
        spellCheck={false}
      />
      <FieldError id="mcp-name-error" message={errors.name} />

      <fieldset disabled={locked}>
        <legend>Transport</legend>
        <label className="inline">
          <input
            type="radio"
            name="mcp-transport"
            checked={draft.transport === "stdio"}
            onChange={() => edit({ transport: "stdio" })}
          />{" "}
          Command (stdio)
        </label>
        <label className="inline">
          <input
            type="radio"
            name="mcp-transport"
            checked={draft.transport === "http"}
            onChange={() => edit({ transport: "http" })}
          />{" "}
          URL (Streamable HTTP)
        </label>
      </fieldset>

      {draft.transport === "stdio" ? (
        <>
          <label htmlFor="mcp-command">Command</label>
          <input
            id="mcp-command"
            value={draft.command}
            disabled={locked}
            aria-invalid={errors.command !== undefined}
            {...described("command")}
            onChange={(event) => edit({ command: event.target.value })}
            placeholder="e.g. npx"
            spellCheck={false}
          />
          <FieldError id="mcp-command-error" message={errors.command} />
          <label htmlFor="mcp-args">Arguments (one per line)</label>
          <textarea
            id="mcp-args"
            rows={3}
            value={draft.argsText}
            disabled={locked}
            onChange={(event) => edit({ argsText: event.target.value })}
            spellCheck={false}
          />
          <label htmlFor="mcp-env">Environment (KEY=value, one per line)</label>
          <textarea
            id="mcp-env"
            rows={2}
            value={draft.envText}
            disabled={locked}
            aria-invalid={errors.envText !== undefined}
            {...described("envText")}
            onChange={(event) => edit({ envText: event.target.value })}
            spellCheck={false}
          />
          <FieldError id="mcp-envText-error" message={errors.envText} />
          <label htmlFor="mcp-cwd">Working folder (optional, relative to the project)</label>
          <input
            id="mcp-cwd"
            value={draft.cwd}
            disabled={locked}
            onChange={(event) => edit({ cwd: event.target.value })}
            spellCheck={false}
          />
        </>
      ) : (
        <>
          <label htmlFor="mcp-url">URL</label>
          <input
            id="mcp-url"
            value={draft.url}
            disabled={locked}
            aria-invalid={errors.url !== undefined}
            {...described("url")}
            onChange={(event) => edit({ url: event.target.value })}
            placeholder="https://example.com/mcp"
            spellCheck={false}
          />
          <FieldError id="mcp-url-error" message={errors.url} />
          <label htmlFor="mcp-headers">Headers (Name: value, one per line)</label>
          <textarea
            id="mcp-headers"
            rows={2}
            value={draft.headersText}
            disabled={locked}
            aria-invalid={errors.headersText !== undefined}
            {...described("headersText")}
            onChange={(event) => edit({ headersText: event.target.value })}
            spellCheck={false}
          />
          <FieldError id="mcp-headersText-error" message={errors.headersText} />
          {draft.mode === "edit" ? (
            <p className="muted">Leave a header&apos;s value empty to keep the value saved now.</p>
          ) : null}
        </>
      )}
      <ErrorLine message={form.error} />
      {form.confirm ? (
        <Confirmation />
      ) : (
        <div className="row-actions">
          <button type="submit" className="run" ref={reviewButton} disabled={form.busy}>
            {form.busy ? "Checking…" : "Review command"}
          </button>
          <button type="button" disabled={form.busy} onClick={close}>
            Cancel
          </button>
        </div>
      )}
    </form>
  );
}
