import { useAppState } from "../state/store-context.tsx";
import { CodeSpans } from "./code-spans.tsx";
import { Icon } from "./icons.tsx";

const NONE: readonly string[] = [];

/** What the host must tell the person once (the OS sandbox is off; ignored project settings), until closed. */
export function NoticesBanner() {
  const notices = useAppState((s) => s.project?.notices ?? NONE);
  const dismissed = useAppState((s) => s.dismissedNotices);
  const dismiss = useAppState((s) => s.dismissNotice);
  const setView = useAppState((s) => s.setView);
  const shown = notices.filter((n) => !dismissed.includes(n));
  if (shown.length === 0) return null;
  return (
    <ul className="notices-banner" aria-label="Notices">
      {shown.map((notice) => {
        const sandbox = /sandbox/i.test(notice);
        return (
          <li key={notice} className={sandbox ? "notice-sandbox" : undefined}>
            <Icon name="warning" size={15} />
            <span className="notice-text">
              <CodeSpans text={notice} />
            </span>
            {sandbox ? (
              <button type="button" className="link-button" onClick={() => setView("settings", "sandbox")}>
                Sandbox settings
              </button>
            ) : null}
            <button
              type="button"
              className="icon-button notice-close"
              aria-label="Close this notice"
              onClick={() => dismiss(notice)}
            >
              <Icon name="x" size={12} />
            </button>
          </li>
        );
      })}
    </ul>
  );
}
