import os from "node:os";
import path from "node:path";
import type { FsCapability } from "../capability/fs-capability.ts";
import { hostIsDeclared, matchingHostPattern, urlHost } from "../capability/host-pattern.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { SandboxStatus } from "../sandbox/sandbox-availability.ts";
import type { PolicyResult, StageRecord } from "../tools/call-decision.ts";
import { commandText, type CallPlan, type ResolvedAccess, type ResolvedPlan } from "../tools/call-plan.ts";
import type { AnyTool, ToolOrigin } from "../tools/contract.ts";
import type { SimpleCommand } from "../tools/shell-command.ts";
import type { ToolCall } from "../tools/tool-call.ts";
import type { ApprovalCache } from "./approval-cache.ts";
import type { Approver } from "./approval-request.ts";
import type { ApprovalMode } from "../config/lathe-settings.ts";
import type { PolicyConfig } from "../config/policy-config.ts";
import type { ProtectedPaths } from "./protected-paths.ts";
import { commandSpellings } from "./command-spellings.ts";
import { compilePattern } from "./rule-pattern.ts";
import { HiddenPathError } from "../errors/hidden-path-error.ts";
import { homeRelative } from "../sandbox/hidden-path-set.ts";
import { hiddenPathNamed, type HiddenPathNamed } from "./hidden-paths.ts";
import { MAX_ENTRIES_SEEN, mentionedPaths } from "./mentioned-paths.ts";
import { namesOnTheWay } from "./path-names.ts";
import { explainVerdict, stricterVerdict, type RuleVerdict, type Ruleset, type Subject } from "./ruleset.ts";
import { matchesShellRequirement } from "./shell-requirements.ts";
import type { ShellRunRequirement } from "../tools/requirement-set.ts";
import { runWatchdog, type WatchdogCheck } from "./watchdog.ts";

/** Everything one session's policy decisions need. */
export interface PolicyContext {
  root: string;
  latheHome: string;
  sessionId: string;
  agent: string;
  config: PolicyConfig;
  ruleset: Ruleset;
  mode: ApprovalMode;
  approver: Approver | undefined;
  approvals: ApprovalCache;
  watchdog: readonly WatchdogCheck[];
  /** Whether the OS sandbox confines the processes calls start (when not, they need a person). */
  sandbox: SandboxStatus;
  /** What no write may reach (the watchdog's self-protection). */
  protectedPaths: ProtectedPaths;
  /**
   * The prompts on their way to a person, by tool and approval key: a call with the same key
   * waits for that answer instead of asking again, and an "always" covers it.
   */
  pendingApprovals: Map<string, Promise<unknown>>;
}

/**
 * Whether allowlist mode lets a call through without asking. An entry is `tool:pattern` (a bare
 * tool id lets every call of that tool through), its pattern read as a rule's pattern is. It
 * speaks for each thing the call touches that no rule allows yet — each command of a bash line,
 * each path (as the capability check resolved it), each host — and all of them must match an
 * entry: `bash:git log*` does not let `git log && rm -rf src` through, nor `edit:docs/*` an edit
 * of `docs/../src/a.ts`. A call that names nothing the policy can see is matched by its approval
 * key, with or without the `tool:` the key may start with.
 */
export function allowlistMatches(
  allowlist: readonly string[],
  toolId: string,
  key: string,
  asking: readonly Subject[],
): boolean {
  const patterns: string[] = [];
  for (const entry of allowlist) {
    const colon = entry.indexOf(":");
    const tool = colon < 0 ? entry : entry.slice(0, colon);
    if (tool !== toolId && tool !== "*") continue;
    if (colon < 0) return true;
    patterns.push(entry.slice(colon + 1));
  }
  if (patterns.length === 0) return false;
  if (asking.length === 0) {
    const keys = key.startsWith(`${toolId}:`) ? [key, key.slice(toolId.length + 1)] : [key];
    return patterns.some((p) => keys.some((k) => compilePattern(p, "command").test(k)));
  }
  return asking.every((subject) =>
    patterns.some((p) => {
      const pattern = compilePattern(p, subject.kind);
      return subject.values.some((v) => pattern.test(v));
    }),
  );
}

/** What a refusal because of a name the file was reached by tells the model to do. */
const NAME_DENIED =
  "The rule speaks for the file under that name, wherever it is stored: do not try to reach it by another path. If the task needs it, ask the user.";

/** The longest command a reason quotes whole; the call's own view shows all of it. */
const QUOTED_COMMAND_CHARS = 120;

/**
 * A command as a reason quotes it: its first line, cut at QUOTED_COMMAND_CHARS, with "…" where
 * something was left out (a heredoc's body, a long argument list). Rules match the whole text.
 */
function inBrief(command: string): string {
  const firstLine = command.split("\n", 1)[0] as string;
  const cut = firstLine.length > QUOTED_COMMAND_CHARS ? firstLine.slice(0, QUOTED_COMMAND_CHARS) : firstLine;
  return cut.length < command.length ? `${cut.trimEnd()} …` : cut;
}

function subjectsOf(tool: AnyTool, accesses: readonly ResolvedAccess[]): Subject[] {
  // Writes first: when several accesses need approval alike (an edit reads and writes its
  // file), the refusal explains the change, "writing", not the read before it.
  const ordered = [...accesses].sort(
    (a, b) => Number(b.capability === "fs.write") - Number(a.capability === "fs.write"),
  );
  return ordered.map((a): Subject => {
    switch (a.capability) {
      case "fs.read":
      case "fs.write":
        return {
          permissions: [tool.id, a.capability],
          kind: "path",
          values: [a.path.display, a.path.absolute],
          label: `${a.capability === "fs.read" ? "reading" : "writing"} "${a.path.display}"`,
        };
      case "shell.run":
        return {
          permissions: [tool.id, "shell.run"],
          kind: "command",
          ...commandSpellings(a.command, a.text),
          label: `the command "${inBrief(a.text)}"`,
        };
      case "net.fetch":
        return {
          permissions: [tool.id, "net.fetch"],
          kind: "host",
          values: [a.host],
          label: `fetching from ${a.host}`,
        };
    }
  });
}

/**
 * The other names each file access reaches its file by (see ResolvedAccess.via), as subjects of
 * their own: a rule that denies or asks about a name holds for the file it leads to, while only
 * the file's own path can allow it (a symlink named like an allowed file is no way in).
 */
function nameSubjects(tool: AnyTool, accesses: readonly ResolvedAccess[], fs: FsCapability): Subject[] {
  return accesses.flatMap((a): Subject[] => {
    if ((a.capability !== "fs.read" && a.capability !== "fs.write") || !a.via) return [];
    const verb = a.capability === "fs.read" ? "reading" : "writing";
    return a.via.map((absolute) => {
      const display = fs.display(absolute);
      return {
        permissions: [tool.id, a.capability],
        kind: "path",
        values: [display, absolute],
        label: `${verb} "${display}" (through a symlink)`,
      };
    });
  });
}

/**
 * The strictest verdict a rule gives on the names a call reaches its files by, counting only
 * denies and asks (an allow, or no rule at all, leaves the file's own path to decide).
 */
function nameVerdict(ruleset: Ruleset, names: readonly Subject[]): RuleVerdict | undefined {
  let strictest: RuleVerdict | undefined;
  for (const subject of names) {
    const v = ruleset.evaluate(subject);
    if (v.rule === undefined || v.action === "allow") continue;
    strictest = strictest ? stricterVerdict(strictest, v) : v;
    if (strictest.action === "deny") break;
  }
  return strictest;
}

/**
 * Why a command is not declared, and who can change that: for a built-in, the user's `shell`
 * setting; for a plugin, only its own tool.yaml (the setting widens built-ins alone).
 */
function undeclaredCommand(
  name: string,
  origin: ToolOrigin,
  declared: readonly ShellRunRequirement[],
  ctx: PolicyContext,
): string {
  if (origin.kind !== "plugin") {
    return `it is not among the commands this tool declared. Use another command, or a person can add {"cmd": "${name}"} under "shell" in ${ctx.config.userSettingsFile}.`;
  }
  const shapes = declared.filter((r) => r.cmd === name);
  if (shapes.length > 0) {
    const allowed = shapes.map((r) => JSON.stringify(r.args ?? [])).join(" or ");
    return `the plugin declared "${name}" only with the arguments ${allowed} (a string exactly, {"prefix"} an argument starting with it, {"wildcard"} any one argument). Call it with arguments of that shape, or a person can widen that entry under requires.shell in the plugin's tool.yaml.`;
  }
  const list = declared.map((r) => r.cmd).join(", ");
  return `it is not among the commands this plugin declared (${list === "" ? "none" : list}). Use another command, or a person can declare it in the plugin's tool.yaml: {cmd: "${name}"} under requires.shell (settings' "shell" list widens built-in tools only).`;
}

async function resolvePlan(
  tool: AnyTool,
  origin: ToolOrigin,
  plan: CallPlan,
  fs: FsCapability,
  ctx: PolicyContext,
): Promise<ResolvedPlan> {
  const cwd = plan.cwd ? await fs.resolve(plan.cwd, "read") : undefined;
  const base = cwd?.absolute ?? fs.root;
  const shellRequirements = [
    ...(tool.requires.shell ?? []),
    ...(origin.layer === "builtin" ? ctx.config.shell : []),
  ];
  const accesses: ResolvedAccess[] = [];
  // Only a deny or an ask rule judges the names a path is reached by: without one, no disk look-up.
  const namesJudged = ctx.ruleset.rules.some((r) => r.action !== "allow");
  for (const a of plan.accesses) {
    if (a.capability === "shell.run") {
      const text = commandText(a.command);
      if (!matchesShellRequirement(a.command, shellRequirements)) {
        throw new ToolCallError(
          `${tool.id} may not run "${a.command.name}" (in "${text}"): ${undeclaredCommand(a.command.name, origin, shellRequirements, ctx)}`,
          "capability_denied",
        );
      }
      accesses.push({ capability: "shell.run", command: a.command, text });
    } else if (a.capability === "net.fetch") {
      let url: URL;
      try {
        url = new URL(a.url);
      } catch {
        throw new ToolCallError(`"${a.url}" is not a valid URL. Give a full http:// or https:// URL.`);
      }
      const host = urlHost(url);
      if (!matchingHostPattern(tool.requires.net?.hosts ?? [], url)) {
        const declared = tool.requires.net?.hosts ?? [];
        throw new ToolCallError(
          `${tool.id} may not reach ${url.host}: it is not among the hosts this tool declared${declared.length > 0 ? ` (${declared.join(", ")})` : ""}.`,
          "capability_denied",
        );
      }
      accesses.push({ capability: "net.fetch", url: a.url, host });
    } else {
      const access = a.capability === "fs.read" ? "read" : "write";
      // Not path.resolve: `link/../x` must be resolved through the link, as the kernel will.
      const written = path.isAbsolute(a.path) ? a.path : `${base}/${a.path}`;
      const resolvedPath = await fs.resolve(written, access);
      const via = namesJudged ? await namesOnTheWay(written, resolvedPath.absolute) : [];
      accesses.push({
        capability: a.capability,
        input: a.path,
        path: resolvedPath,
        ...(via.length > 0 ? { via } : {}),
      });
    }
  }
  return cwd ? { accesses, cwd } : { accesses };
}

/** The commands a plan runs. */
function shellCommands(plan: CallPlan): SimpleCommand[] {
  return plan.accesses.flatMap((a) => (a.capability === "shell.run" ? [a.command] : []));
}

/**
 * Why a read-only command may, in this folder, do more than its words say (see
 * command-disk-reason.ts). Its checks and the shell tables they use are loaded here, on the first
 * call that needs them, not at every start.
 */
async function diskReason(plan: CallPlan, base: string, root: string): Promise<string | undefined> {
  const { commandDiskReason } = await import("./command-disk-reason.ts");
  return commandDiskReason(shellCommands(plan), plan, base, root);
}

/**
 * Why a call needs a person because the OS sandbox is not there to hold what it starts: a bash
 * command that is not provably read-only, or any command a plugin starts. Undefined when the
 * sandbox is active or the call starts nothing that could change anything.
 */
async function unconfinedReason(
  sandbox: SandboxStatus,
  plan: CallPlan,
  base: string,
  root: string,
): Promise<string | undefined> {
  if (sandbox.active) return undefined;
  const notReadOnly = plan.startsProcess
    ? (plan.notReadOnly ?? (await diskReason(plan, base, root)))
    : undefined;
  const why = plan.startsProcess
    ? notReadOnly && `this command is not provably read-only (${notReadOnly})`
    : plan.accesses.some((a) => a.capability === "shell.run")
      ? "it starts a command for a plugin"
      : undefined;
  if (why === undefined) return undefined;
  return `the OS sandbox is not active (${sandbox.reason}), and ${why}, so only a person can let it run unconfined. To turn the sandbox on: ${sandbox.fix}`;
}

/**
 * A pattern for exactly what a subject names: a workspace file at the top level is written from
 * `./`, as `notes.md` alone would name every `notes.md` at any depth (see rule-pattern.ts).
 */
function exactPattern(subject: Subject): string {
  const value = subject.values[0] ?? "*";
  return subject.kind === "path" && !value.includes("/") && value !== "." ? `./${value}` : value;
}

/**
 * The rules that would let the refused call run: one for each thing it touches that no rule
 * allows yet (a command, a path, a host), all at once, so adding them is enough. Where the call
 * is judged as a whole (a plugin that declares nothing to match), a rule for this exact argument
 * list would never match again, so the rule allows every call of the tool. Written so the list
 * can be pasted into the settings' "permissions" array as it is.
 */
function howToAllow(
  toolId: string,
  ctx: PolicyContext,
  asking: readonly Subject[],
  wholeCall: boolean,
): string {
  const patterns = wholeCall ? ["*"] : [...new Set(asking.map(exactPattern))];
  const rules = patterns.map((pattern) => JSON.stringify({ permission: toolId, pattern, action: "allow" }));
  const what = wholeCall ? `every ${toolId} call` : "it";
  return `To allow ${what}, add ${rules.join(", ")} to "permissions" in ${ctx.config.userSettingsFile} (or in ${ctx.config.projectSettingsFile} once the project is trusted), or run with --mode yolo.`;
}

/**
 * The `fs.read` deny a path the command names falls under (see CallPlan.mentions), if any: the
 * program may read it, and the person said that nothing may.
 */
async function mentionDeny(
  tool: AnyTool,
  plan: CallPlan,
  resolved: ResolvedPlan,
  fs: FsCapability,
  ctx: PolicyContext,
): Promise<RuleVerdict | undefined> {
  if (!plan.mentions || plan.mentions.length === 0) return undefined;
  if (!ctx.ruleset.rules.some((r) => r.action === "deny")) return undefined;
  const names = new Set<string>();
  const canonical = await mentionedPaths(plan.mentions, resolved.cwd?.absolute ?? fs.root, names);
  // A name (a symlink `.env`, the path as written) counts only when a rule denies it: its file's own path decides the rest.
  for (const [absolute, byName] of [
    ...canonical.map((p) => [p, false] as const),
    ...[...names].map((p) => [p, true] as const),
  ]) {
    const display = fs.display(absolute);
    const verdict = ctx.ruleset.evaluate({
      permissions: [tool.id, "fs.read"],
      kind: "path",
      values: [display, absolute],
      label: `reading "${display}" (which the command names${byName ? ", through a symlink" : ""})`,
    });
    if (verdict.action === "deny") return verdict;
  }
  return undefined;
}

/**
 * Why a command naming a hidden path is refused, and what the user could change. `sandboxActive`:
 * whether the OS sandbox would hide it too (when it is off, Lathe's refusal is all there is).
 */
function hiddenReason(hidden: HiddenPathNamed, userSettingsFile: string, sandboxActive: boolean): string {
  const hides = sandboxActive
    ? "the OS sandbox hides it from every command"
    : "with the OS sandbox off, Lathe refuses every command that names it";
  if (hidden.folder !== undefined) {
    const n = hidden.stopAt;
    // What a lister may show instead: the hidden folder's name, and du its total size.
    const limit =
      n === undefined
        ? ""
        : ` Listed no deeper than ${n} level${n === 1 ? "" : "s"} (find -maxdepth ${n}, du -d ${n}, tree -L ${n}), it runs, as ls does: that shows the hidden folder's name (du also its total size or file count, summed from inside it; not with --time, whose newest time below no sum shows), never a name inside it.`;
    return hidden.path === hidden.folder
      ? `the command reads the folder ${homeRelative(hidden.path)} as a whole, which holds paths no command may read (under "sandbox.denyRead" or Lathe's own data), and the OS sandbox is not there to hide them. Name the files or folders to read instead.${limit}`
      : `the command reads the folder ${hidden.folder} as a whole, and it is a link to ${homeRelative(hidden.path)}, which holds paths no command may read (under "sandbox.denyRead" or Lathe's own data). Name the files or folders inside the workspace instead.${limit}`;
  }
  if (hidden.cut !== undefined)
    return `the pattern ${hidden.cut} matches more files than Lathe checks (${MAX_ENTRIES_SEEN.toLocaleString("en-US")} entries looked at), so it cannot make sure none of them is a hidden path (such as ~/.ssh). Name the files or a narrower pattern.`;
  const named = homeRelative(hidden.path);
  const entry = homeRelative(hidden.entry);
  if (hidden.link !== undefined) {
    const link = homeRelative(hidden.link);
    const where =
      hidden.hiddenBy === "lathe-home"
        ? "Lathe's own data"
        : `hidden by "sandbox.denyRead" in ${userSettingsFile}`;
    return hidden.hardLink === "unchecked"
      ? `the command names ${link}, a file with several names (hard links), and ${entry} (${where}) holds too many files to make sure none of them is this file; no command may read it. Do not try to read it another way.`
      : `the command names ${link}, a hard link to ${named} (the same file under another name), which commands may not read: ${entry} is ${where}. Do not try to read it another way.${hidden.hiddenBy === "denyRead" ? ` If the user wants commands to read it, they must remove ${entry} from "sandbox.denyRead".` : ""}`;
  }
  // A glob's match inside the entry is not shown (it is a name there): the glob and the entry are.
  const names =
    hidden.glob === undefined
      ? `names ${named}`
      : `names ${homeRelative(hidden.glob)}, which matches paths in ${named}`;
  if (hidden.hiddenBy === "lathe-home") {
    return `the command ${names}, which holds Lathe's own data (the conversations, settings and file copies of every folder); no command may read it, and ${hides}.`;
  }
  // du -s given a path inside the entry: the entry's own total is what it may print instead.
  const total =
    hidden.totalOf === undefined
      ? ""
      : ` Its total size is shown: du -s ${homeRelative(hidden.totalOf)} runs (it prints what du -d 1 of the folder around it prints), never a name or size inside it.`;
  return `the command ${names}, which commands may not read: ${entry} is in "sandbox.denyRead" (by default, the places credentials live), and ${hides}. Do not try to read it another way.${total} If the user wants commands to read it, they must set "sandbox.denyRead" in ${userSettingsFile} to a list without ${entry}.`;
}

/** Resolves once `promise` settles, or as soon as `signal` aborts, whichever comes first. */
function settledOrAborted(promise: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal?.removeEventListener("abort", done);
      resolve();
    };
    signal?.addEventListener("abort", done, { once: true });
    promise.then(done, done);
  });
}

/** The deny when there is one, else the first verdict. */
function moreSevere(first: RuleVerdict, deny: RuleVerdict | undefined): RuleVerdict {
  return deny && first.action !== "deny" ? deny : first;
}

/** What `authorize` decides instead of the tool's own plan: an access it makes while running. */
interface PlanOverride {
  plan?: CallPlan;
  approvalKey?: string;
}

/**
 * Decide one call: capability check → permission rules → watchdog → approval. Any stage can
 * refuse; only the approval stage (a person, a cached "always", allowlist or yolo mode) can turn
 * an `ask` into a run, and never a deny, a capability refusal or a watchdog refusal.
 */
export async function decideCall(
  ctx: PolicyContext,
  call: ToolCall,
  override: PlanOverride = {},
): Promise<PolicyResult> {
  const { tool, origin } = call.entry;
  const { args, signal } = call;
  const stages: StageRecord[] = [];
  // Paths are judged as they are now, not as an earlier call of the session found them.
  call.fs.hidden.forgetPaths();
  const plan: CallPlan = override.plan ?? (await tool.plan?.(args)) ?? { accesses: [], unclear: [] };

  let resolved: ResolvedPlan;
  try {
    resolved = await resolvePlan(tool, origin, plan, call.fs, ctx);
  } catch (err) {
    if (!ToolCallError.isInstance(err)) throw err;
    // A hidden path is refused whatever the mode; a command's in the words of the commands' refusal.
    const hidden = HiddenPathError.isInstance(err) ? err.hidden : undefined;
    const startsCommand = plan.accesses.some((a) => a.capability === "shell.run");
    const reason =
      hidden && startsCommand
        ? hiddenReason(hidden, ctx.config.userSettingsFile, ctx.sandbox.active)
        : err.message;
    stages.push({ stage: "capability", outcome: "deny", reason });
    const errorText = hidden ? `${tool.id} was refused: ${reason}` : reason;
    return { allowed: false, stages, accesses: [], errorText };
  }
  const hidden = await hiddenPathNamed(
    plan,
    resolved,
    resolved.cwd?.absolute ?? call.fs.root,
    call.fs.hidden,
    !ctx.sandbox.active,
  );
  if (hidden) {
    const reason = hiddenReason(hidden, ctx.config.userSettingsFile, ctx.sandbox.active);
    stages.push({ stage: "capability", outcome: "deny", reason });
    return { allowed: false, stages, ...resolved, errorText: `${tool.id} was refused: ${reason}` };
  }
  stages.push({ stage: "capability", outcome: "allow", reason: "within the tool's declared requirements" });

  const key = override.approvalKey ?? tool.deriveApprovalKey(args);
  const subjects = subjectsOf(tool, resolved.accesses);
  const fallback: Subject = {
    permissions: [tool.id],
    kind: "command",
    values: [key],
    label: `the ${tool.id} call`,
  };
  const names = nameSubjects(tool, resolved.accesses, call.fs);
  const byName = nameVerdict(ctx.ruleset, names);
  const byPath = ctx.ruleset.evaluateAll(subjects, fallback);
  const verdict = moreSevere(
    byName ? stricterVerdict(byPath, byName) : byPath,
    await mentionDeny(tool, plan, resolved, call.fs, ctx),
  );
  const explanation = explainVerdict(verdict);
  stages.push({ stage: "rule", outcome: verdict.action, reason: explanation });
  if (verdict.action === "deny") {
    const viaName = names.includes(verdict.subject) ? ` ${NAME_DENIED}` : "";
    return {
      allowed: false,
      stages,
      ...resolved,
      errorText: `${tool.id} was denied: ${explanation}.${viaName}`,
    };
  }

  // Reasons only a person may overrule: what the parser could not see through, and the watchdog.
  const hardAsk = [...plan.unclear];
  // A file named like an option that a glob hands a program (`--pre=sh` for `rg foo *`): the
  // program then does what no rule allowed it for, in every mode, like `rg --pre` spelled out.
  if (plan.startsProcess) {
    // Loaded on the first call that starts a process (with the shell tables it uses), not at start.
    const { optionLikeFileName } = await import("./option-like-file-names.ts");
    const planted = optionLikeFileName(shellCommands(plan), resolved.cwd?.absolute ?? call.fs.root);
    if (planted !== undefined) hardAsk.push(planted);
  }
  const watchdog = await runWatchdog(
    ctx.watchdog,
    {
      toolId: tool.id,
      args,
      sessionId: ctx.sessionId,
      agent: ctx.agent,
      accesses: resolved.accesses,
      cwd: resolved.cwd?.absolute ?? call.fs.root,
      root: ctx.root,
      latheHome: ctx.latheHome,
      home: os.homedir(),
      protectedPaths: ctx.protectedPaths,
      ruleAllows: (text, mention) =>
        ctx.ruleset.hasAllow(
          (r) =>
            (r.permission === tool.id || r.permission === "shell.run") &&
            r.pattern.includes(mention) &&
            compilePattern(r.pattern, "command").test(text),
        ),
      hostAllowed: (host) =>
        hostIsDeclared(tool.requires.net?.hosts ?? [], host) ||
        ctx.ruleset.evaluate({ permissions: ["net.fetch"], kind: "host", values: [host], label: host })
          .action === "allow",
    },
    signal,
  );
  stages.push({
    stage: "watchdog",
    outcome: watchdog.decision,
    reason: watchdog.reasons.join(" ") || "no objection",
  });
  if (watchdog.decision === "deny") {
    return {
      allowed: false,
      stages,
      ...resolved,
      errorText: `${tool.id} was refused by the watchdog: ${watchdog.reasons.join(" ")}`,
    };
  }
  if (watchdog.decision === "ask") hardAsk.push(...watchdog.reasons);
  const unconfined = await unconfinedReason(
    ctx.sandbox,
    plan,
    resolved.cwd?.absolute ?? call.fs.root,
    ctx.root,
  );
  if (unconfined !== undefined) hardAsk.push(unconfined);

  // Ungated tools (those that only read) run unasked by default, but not past a rule that asks.
  const ruleAsk = verdict.action === "ask" && (tool.gated || verdict.rule !== undefined);
  if (!ruleAsk && hardAsk.length === 0) {
    if (verdict.action === "ask")
      stages.push({ stage: "approval", outcome: "allow", reason: `${tool.id} is not gated` });
    return { allowed: true, stages, ...resolved };
  }

  const approve = (reason: string): PolicyResult => {
    stages.push({ stage: "approval", outcome: "allow", reason });
    // Allowed: a call that waited for it runs now (or, asked while it ran, runs on).
    call.phase?.("running");
    return { allowed: true, stages, ...resolved };
  };
  if (ctx.approvals.has(tool.id, key)) return approve(`approved earlier in this session (key "${key}")`);
  if (hardAsk.length === 0 && ctx.mode === "yolo") return approve("yolo mode");
  // What no rule allows yet: what the allowlist must cover, and the rules a refusal suggests.
  // (For a tool that is not gated, only what a rule asks about: the rest it may read unasked.)
  const asking = [
    ...subjects.filter((subject) => {
      const v = ctx.ruleset.evaluate(subject);
      return v.action !== "allow" && (tool.gated || v.rule !== undefined);
    }),
    ...names.filter((subject) => {
      const v = ctx.ruleset.evaluate(subject);
      return v.rule !== undefined && v.action === "ask";
    }),
  ];
  if (
    hardAsk.length === 0 &&
    ctx.mode === "allowlist" &&
    allowlistMatches(ctx.config.allowlist, tool.id, key, asking)
  ) {
    return approve(`everything it touches is on the allowlist (key "${key}")`);
  }
  // Each reason reads as a sentence of its own, in the refusal and in the approval prompt.
  const reasons = [...(verdict.action === "ask" ? [explanation] : []), ...hardAsk].map((r) => {
    const sentence = r.charAt(0).toUpperCase() + r.slice(1);
    return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
  });
  if (!ctx.approver) {
    const reason = `${tool.id} needs approval and this host cannot ask anyone (headless), so it is refused. ${reasons.join(" ")}`;
    stages.push({ stage: "approval", outcome: "deny", reason });
    const wholeCall = subjects.length === 0;
    const fix = hardAsk.length > 0 ? "" : ` ${howToAllow(tool.id, ctx, asking, wholeCall)}`;
    return { allowed: false, stages, ...resolved, errorText: `${reason}${fix}` };
  }
  // A host settles a prompt whose call was stopped (Ctrl-C, the run's stop button) as refused;
  // no one refused it, and the model must not be told the user did.
  const stoppedWhileWaiting = (): PolicyResult => {
    stages.push({
      stage: "approval",
      outcome: "deny",
      reason: "the call was stopped while it waited for approval",
    });
    return {
      allowed: false,
      stages,
      ...resolved,
      errorText: `This ${tool.id} call was stopped while it waited for approval, so it was not run. No one refused it.`,
    };
  };
  const pendingKey = `${tool.id}\u0000${key}`;
  const earlier = ctx.pendingApprovals.get(pendingKey);
  // From here the call waits for a person: its own prompt, or an identical call's before it.
  call.phase?.("awaiting-approval");
  if (earlier) {
    // Stopped while the identical call's prompt is up (its card's Stop): it ends now.
    await settledOrAborted(earlier, signal);
    if (signal?.aborted) return stoppedWhileWaiting();
    if (ctx.approvals.has(tool.id, key)) return approve(`approved earlier in this session (key "${key}")`);
  }
  const prompt = ctx.approver(
    {
      id: `${ctx.sessionId}:${key}`,
      sessionId: ctx.sessionId,
      toolId: tool.id,
      ...(call.correlationId !== undefined ? { toolCallId: call.correlationId } : {}),
      origin,
      args,
      approvalKey: key,
      reasons,
    },
    signal,
  );
  const settled = prompt.then(
    () => undefined,
    () => undefined,
  );
  ctx.pendingApprovals.set(pendingKey, settled);
  let answer: Awaited<typeof prompt>;
  try {
    answer = await prompt;
  } finally {
    if (ctx.pendingApprovals.get(pendingKey) === settled) ctx.pendingApprovals.delete(pendingKey);
  }
  if (signal?.aborted && answer !== "once" && answer !== "always") return stoppedWhileWaiting();
  if (answer === "unanswered") {
    stages.push({
      stage: "approval",
      outcome: "deny",
      reason: "no one answered: the window that asked was closed",
    });
    return {
      allowed: false,
      stages,
      ...resolved,
      errorText: `No one answered the approval for this ${tool.id} call (the window that asked was closed), so it was not run. No one refused it either: once the user is back, say what you want to do and ask them.`,
    };
  }
  if (answer === "reject") {
    stages.push({ stage: "approval", outcome: "deny", reason: "the user rejected the call" });
    return {
      allowed: false,
      stages,
      ...resolved,
      errorText: `The user rejected this ${tool.id} call. Do not retry it; ask what to do instead.`,
    };
  }
  if (answer === "always") ctx.approvals.add(tool.id, key);
  return approve(answer === "always" ? "approved by the user for this session" : "approved once by the user");
}
