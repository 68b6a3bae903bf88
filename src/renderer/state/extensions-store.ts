import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiResult, LatheApi } from "../../shared/api-contract.ts";
import type { ExtensionsStatus, PluginLayer } from "../../shared/extensions-schemas.ts";
import { draftOf, emptyDraft, parseDraft, type McpFormDraft, type McpFormField } from "./mcp-form.ts";

/** The add/edit form: what is typed, its problems, and the command waiting for confirmation. */
interface McpFormState {
  draft: McpFormDraft;
  errors: Partial<Record<McpFormField, string>>;
  /**
   * Set once the host said exactly what would run: the person confirms this, or goes back. The
   * digest stands for it unmasked; `mcp.save` confirms with it.
   */
  confirm: { commandLine: string; digest: string } | undefined;
  /** Why the host refused the draft or the save. */
  error: string | undefined;
  busy: boolean;
}

interface LogView {
  name: string;
  file: string | undefined;
  lines: string[];
  loading: boolean;
  error: string | undefined;
}

/** A plugin's log file as the Plugins panel shows it (polled while open). */
interface PluginLogView {
  layer: PluginLayer;
  name: string;
  file: string | undefined;
  lines: string[];
  loading: boolean;
  error: string | undefined;
}

export interface ExtensionsState {
  status: ExtensionsStatus | undefined;
  loadError: string | undefined;
  /** The action under way, e.g. "restart:everything" (its buttons are disabled meanwhile). */
  pending: string | undefined;
  /** Why the last action failed. */
  actionError: string | undefined;
  form: McpFormState | undefined;
  log: LogView | undefined;
  pluginLog: PluginLogView | undefined;
  load(): Promise<void>;
  setPluginEnabled(layer: PluginLayer, name: string, enabled: boolean): Promise<void>;
  approvePlugin(name: string, hash: string): Promise<void>;
  restartServer(name: string): Promise<void>;
  setServerEnabled(name: string, enabled: boolean): Promise<void>;
  removeServer(name: string): Promise<void>;
  openLog(name: string): Promise<void>;
  refreshLog(): Promise<void>;
  closeLog(): void;
  /** Show a plugin's log: what it logged (runtime.log, console) and Lathe's notes (restarts, errors). */
  openPluginLog(layer: PluginLayer, name: string): Promise<void>;
  refreshPluginLog(): Promise<void>;
  closePluginLog(): void;
  openAddForm(): void;
  openEditForm(name: string): void;
  editDraft(patch: Partial<McpFormDraft>): void;
  /** Check the draft and ask the host for the exact command, to show before anything is saved. */
  review(): Promise<void>;
  /** Back from the confirmation to the form. */
  back(): void;
  /** Save the server the person confirmed; the host restarts its engine with it. */
  confirm(): Promise<void>;
  closeForm(): void;
  /** Listen to `extensions.changed`; returns the function that stops listening. */
  connect(): () => void;
}

export type ExtensionsStore = StoreApi<ExtensionsState>;

interface ExtensionsStoreOptions {
  /** Told whenever the status changed (the tool list may have too). */
  onChanged?(): void;
}

export function createExtensionsStore(api: LatheApi, options: ExtensionsStoreOptions = {}): ExtensionsStore {
  return createStore<ExtensionsState>()((set, get) => {
    const changed = (status: ExtensionsStatus): void => {
      set({ status, loadError: undefined });
      options.onChanged?.();
    };

    /** Run one action at a time; its answer is the new status, or a message to show. */
    const act = async (key: string, run: () => Promise<ApiResult<ExtensionsStatus>>): Promise<void> => {
      if (get().pending) return;
      set({ pending: key, actionError: undefined });
      const answer = await run();
      set({ pending: undefined });
      if (answer.ok) changed(answer.data);
      else set({ actionError: answer.error.message });
    };

    const setForm = (patch: Partial<McpFormState>): void => {
      const form = get().form;
      if (form) set({ form: { ...form, ...patch } });
    };

    return {
      status: undefined,
      loadError: undefined,
      pending: undefined,
      actionError: undefined,
      form: undefined,
      log: undefined,
      pluginLog: undefined,

      async load() {
        const answer = await api.extensions.status();
        if (answer.ok) changed(answer.data);
        else set({ loadError: answer.error.message });
      },

      setPluginEnabled: (layer, name, enabled) =>
        act(`plugin:${layer}:${name}`, () => api.plugins.setEnabled({ layer, name, enabled })),

      approvePlugin: (name, hash) => act(`approve:${name}`, () => api.plugins.approve({ name, hash })),

      restartServer: (name) => act(`restart:${name}`, () => api.mcp.restart({ name })),

      setServerEnabled: (name, enabled) => act(`enable:${name}`, () => api.mcp.setEnabled({ name, enabled })),

      removeServer: async (name) => {
        await act(`remove:${name}`, () => api.mcp.remove({ name }));
        if (get().log?.name === name && !get().actionError) set({ log: undefined });
      },

      async openLog(name) {
        set({ log: { name, file: undefined, lines: [], loading: true, error: undefined } });
        await get().refreshLog();
      },

      async refreshLog() {
        const log = get().log;
        if (!log) return;
        // Read again every two seconds while shown: the view keeps what it shows until the answer.
        const answer = await api.mcp.log({ name: log.name, lines: 500 });
        if (get().log?.name !== log.name) return;
        set({
          log: answer.ok
            ? {
                name: log.name,
                file: answer.data.file,
                lines: answer.data.lines,
                loading: false,
                error: undefined,
              }
            : { ...log, loading: false, error: answer.error.message },
        });
      },

      closeLog() {
        set({ log: undefined });
      },

      async openPluginLog(layer, name) {
        set({ pluginLog: { layer, name, file: undefined, lines: [], loading: true, error: undefined } });
        await get().refreshPluginLog();
      },

      async refreshPluginLog() {
        const log = get().pluginLog;
        if (!log) return;
        const answer = await api.plugins.log({ layer: log.layer, name: log.name, lines: 500 });
        const now = get().pluginLog;
        // Closed, or another plugin's log opened, while this one was being read.
        if (now?.name !== log.name || now.layer !== log.layer) return;
        set({
          pluginLog: answer.ok
            ? { ...log, file: answer.data.file, lines: answer.data.lines, loading: false, error: undefined }
            : { ...log, loading: false, error: answer.error.message },
        });
      },

      closePluginLog() {
        set({ pluginLog: undefined });
      },

      openAddForm() {
        set({ form: { draft: emptyDraft(), errors: {}, confirm: undefined, error: undefined, busy: false } });
      },

      openEditForm(name) {
        const server = get().status?.mcpServers.find((s) => s.name === name && s.editable);
        const draft = server ? draftOf(server) : undefined;
        if (!draft) {
          set({ actionError: `MCP server "${name}" is not in your settings, so it cannot be edited here.` });
          return;
        }
        set({ form: { draft, errors: {}, confirm: undefined, error: undefined, busy: false } });
      },

      editDraft(patch) {
        const form = get().form;
        if (!form || form.busy) return;
        set({ form: { ...form, draft: { ...form.draft, ...patch }, confirm: undefined, error: undefined } });
      },

      async review() {
        const form = get().form;
        if (!form || form.busy) return;
        const parsed = parseDraft(form.draft);
        if (!parsed.ok) {
          setForm({ errors: parsed.errors, error: undefined });
          return;
        }
        setForm({ errors: {}, error: undefined, busy: true });
        const answer = await api.mcp.preview({ name: parsed.name, server: parsed.server });
        if (!answer.ok) {
          setForm({ busy: false, error: answer.error.message });
          return;
        }
        if (form.draft.mode === "add" && answer.data.exists) {
          setForm({
            busy: false,
            errors: { name: `There is already a server "${parsed.name}". Pick another name.` },
          });
          return;
        }
        setForm({
          busy: false,
          confirm: { commandLine: answer.data.commandLine, digest: answer.data.digest },
        });
      },

      back() {
        setForm({ confirm: undefined });
      },

      async confirm() {
        const form = get().form;
        if (!form?.confirm || form.busy) return;
        const parsed = parseDraft(form.draft);
        if (!parsed.ok) {
          setForm({ confirm: undefined, errors: parsed.errors });
          return;
        }
        setForm({ busy: true, error: undefined });
        const answer = await api.mcp.save({
          name: parsed.name,
          server: parsed.server,
          mode: form.draft.mode,
          confirmedDigest: form.confirm.digest,
        });
        if (!answer.ok) {
          setForm({ busy: false, confirm: undefined, error: answer.error.message });
          return;
        }
        set({ form: undefined });
        changed(answer.data);
      },

      closeForm() {
        if (!get().form?.busy) set({ form: undefined });
      },

      connect() {
        return api.on("extensions.changed", (status) => changed(status));
      },
    };
  });
}
