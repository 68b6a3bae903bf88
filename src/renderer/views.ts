// The app's views and their sections: the nav lists the views, a view with more than one section
// shows them as tabs; app.tsx's CurrentView draws them.
import type { IconName } from "./components/icons.tsx";
import type { AppView } from "./state/app-store.ts";

interface ViewSection {
  id: string;
  label: string;
}

interface ViewInfo {
  view: AppView;
  label: string;
  /** One line for the command palette. */
  hint: string;
  icon: IconName;
  sections: ViewSection[];
}

export const VIEWS: readonly ViewInfo[] = [
  { view: "chat", label: "Chat", hint: "Work with the agent in this folder", icon: "chat", sections: [] },
  {
    view: "tools",
    label: "Tools",
    hint: "Every tool, and a workbench to run one by hand",
    icon: "tools",
    sections: [
      { id: "run", label: "Run a tool" },
      { id: "catalog", label: "Catalog" },
    ],
  },
  {
    view: "extensions",
    label: "Extensions",
    hint: "Plugins and MCP servers",
    icon: "extensions",
    sections: [
      { id: "plugins", label: "Plugins" },
      { id: "mcp", label: "MCP servers" },
    ],
  },
  {
    view: "audit",
    label: "Audit",
    hint: "Every tool call with its decisions, by session, tool and outcome",
    icon: "audit",
    sections: [],
  },
  {
    view: "settings",
    label: "Settings",
    hint: "Approvals, permission rules, the sandbox, models and keys",
    icon: "settings",
    sections: [
      { id: "permissions", label: "Permissions" },
      { id: "sandbox", label: "Sandbox" },
      { id: "models", label: "Models" },
      { id: "providers", label: "Providers" },
    ],
  },
];

export function viewInfo(view: AppView): ViewInfo {
  return VIEWS.find((v) => v.view === view) ?? (VIEWS[0] as ViewInfo);
}
