import type { ApprovalMode } from "../config/lathe-settings.ts";
import { explainVerdict, type RuleVerdict, type Ruleset } from "./ruleset.ts";

/** A file a tool met by itself (a search's walk): its canonical path, and the path it was met under. */
export interface WalkedFile {
  absolute: string;
  display: string;
}

/** What the rules say of files a tool finds by itself, where no call names them and no one is asked. */
export interface WalkedFileRules {
  /** Whether any rule could deny a walked file (when not, `denied` is always undefined). */
  readonly mayDeny: boolean;
  /** Whether any rule could hold a walked file back to ask about it (when not, `asks` is always undefined). */
  readonly mayAsk: boolean;
  /** Why `toolId` may not read the file: the deny rule, as a refusal would explain it; undefined when none denies it. */
  denied(toolId: string, file: WalkedFile): string | undefined;
  /**
   * The pattern of the `ask` rule the file falls under when reading it would need a person's yes
   * in this session (not in yolo mode, nor where the allowlist lets it through); undefined when not.
   */
  asks(toolId: string, file: WalkedFile): string | undefined;
}

/**
 * The rules' verdicts on walked files, as the tool would have them and, for a deny, as the `read`
 * tool would (what `read` may not show, a search does not show either), every verdict by the
 * rules' own precedence. Most sessions have no rule a walk could meet: then nothing is evaluated per file.
 */
export function walkedFileRules(
  ruleset: Ruleset,
  mode: ApprovalMode,
  allowlistLets: (toolId: string, verdict: RuleVerdict) => boolean,
): WalkedFileRules {
  const rules = ruleset.rules;
  const pools = {
    deny: rules.filter((r) => r.action === "deny"),
    ask: rules.filter((r) => r.action === "ask"),
  };
  // A walk asks about each file whether it is denied, then whether it asks: the second question
  // reuses the first's verdict rather than evaluating the rules again.
  let last: { id: string; file: WalkedFile; verdict: RuleVerdict } | undefined;
  const evaluateAs = (id: string, file: WalkedFile): RuleVerdict => {
    if (last?.id === id && last.file.display === file.display && last.file.absolute === file.absolute)
      return last.verdict;
    const verdict = ruleset.evaluate({
      permissions: [id, "fs.read"],
      kind: "path",
      values: [file.display, file.absolute],
      label: `reading "${file.display}"`,
    });
    last = { id, file, verdict };
    return verdict;
  };
  // The permissions each pool names, gathered once: a walk asks per file, and a person's
  // settings may hold thousands of rules.
  const named = {
    deny: new Set(pools.deny.map((r) => r.permission)),
    ask: new Set(pools.ask.map((r) => r.permission)),
  };
  const judge = (action: "deny" | "ask", toolId: string, file: WalkedFile): RuleVerdict | undefined => {
    const permissions = named[action];
    const speaksFor = (id: string) =>
      permissions.has(id) || permissions.has("fs.read") || permissions.has("*");
    const verdictAs = (id: string): RuleVerdict | undefined => {
      if (!speaksFor(id)) return undefined;
      const verdict = evaluateAs(id, file);
      // Only a rule's verdict counts: a read-only tool is not asked by default.
      return verdict.action === action && verdict.rule !== undefined ? verdict : undefined;
    };
    // The read tool's deny rules hold for every tool that reads; its ask rules stay its own: the
    // search's call was asked about (or not) by its own rules, and a person's yes to it covers
    // what it finds, which a verdict taken as `read` could not tell apart.
    return (
      verdictAs(toolId) ??
      (action === "deny" && toolId !== "read" && permissions.has("read") ? verdictAs("read") : undefined)
    );
  };
  const denies = pools.deny.length > 0;
  const asks = mode !== "yolo" && pools.ask.length > 0;
  return {
    mayDeny: denies,
    mayAsk: asks,
    denied: (toolId, file) => {
      if (!denies) return undefined;
      const verdict = judge("deny", toolId, file);
      return verdict === undefined ? undefined : explainVerdict(verdict);
    },
    asks: (toolId, file) => {
      if (!asks) return undefined;
      const verdict = judge("ask", toolId, file);
      if (verdict === undefined || (mode === "allowlist" && allowlistLets(toolId, verdict))) return undefined;
      return verdict.rule?.pattern;
    },
  };
}
