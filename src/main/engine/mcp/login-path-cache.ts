import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "../config/zod-mini.ts";

/** How long a PATH read from the login shell is used without asking the shell again. */
export const SUCCESS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/**
 * How long a login shell that failed or timed out is not asked again: the processes started
 * meanwhile use their own PATH at once instead of each waiting for the shell's limit again.
 */
export const FAILURE_MAX_AGE_MS = 10 * 60 * 1000;

/** The longest PATH kept (a real one is a few KB at most). */
const MAX_PATH_CHARS = 64 * 1024;
/** Answers kept, newest first: one per environment Lathe is started from (a terminal, a launcher, a venv). */
const MAX_ENTRIES = 8;

/** What one run of `$SHELL -l` gave: its PATH, or why there is none. */
export type LoginShellAnswer =
  | { ok: true; path: string; shell: string; at: number; ms: number }
  | { ok: false; reason: string; shell: string; at: number; ms: number };

const Text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const Time = () => z.number().check(z.nonnegative());

const CachedAnswers = z.lazy(() =>
  z.strictObject({
    entries: z
      .array(
        z.strictObject({
          key: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
          answer: z.discriminatedUnion("ok", [
            z.strictObject({
              ok: z.literal(true),
              // No NUL (no shell variable holds one) and no line break (a PATH is one line).
              path: Text(MAX_PATH_CHARS).check(z.regex(/^[^\0\r\n]+$/)),
              shell: Text(4096),
              at: Time(),
              ms: Time(),
            }),
            z.strictObject({
              ok: z.literal(false),
              reason: Text(1000),
              shell: Text(4096),
              at: Time(),
              ms: Time(),
            }),
          ]),
        }),
      )
      .check(z.maxLength(MAX_ENTRIES)),
  }),
);

type Entry = { key: string; answer: LoginShellAnswer };

/** How long an answer stays good: a day for a PATH, ten minutes for a failure. */
export function maxAgeOf(answer: LoginShellAnswer): number {
  return answer.ok ? SUCCESS_MAX_AGE_MS : FAILURE_MAX_AGE_MS;
}

/**
 * The login shell's last answers, kept in `file` (under $LATHE_HOME, which no confined process
 * can read or write) so each `lathe` process does not start a login shell of its own. An answer
 * is good while its key matches (login-path-key.ts: the shell, HOME, the user, the PATH it
 * started with, the login files) and it is younger than its maximum age. A missing, unreadable, malformed or
 * mismatched file is no answer: the shell runs and the file is written again.
 */
export class LoginPathCache {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  /** Every entry of a well-formed file; none for a missing, unreadable or malformed one. */
  private entries(): Entry[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.file, "utf8"));
    } catch {
      return [];
    }
    const cached = CachedAnswers.safeParse(parsed);
    return cached.success ? cached.data.entries : [];
  }

  /** The answer kept for `key`, at any age (isFresh says whether it is still good). */
  read(key: string): LoginShellAnswer | undefined {
    return this.entries().find((entry) => entry.key === key)?.answer;
  }

  /**
   * Keep `answer` for `key` (in place of the one before it, and before the others, of which the
   * oldest past MAX_ENTRIES goes): written to a new file readable by the user alone, then renamed
   * over the old one, so a reader never sees half a file. Throws when it cannot be written.
   */
  write(key: string, answer: LoginShellAnswer): void {
    const entries = [{ key, answer }, ...this.entries().filter((entry) => entry.key !== key)];
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      const text = `${JSON.stringify({ entries: entries.slice(0, MAX_ENTRIES) })}\n`;
      writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
      renameSync(temp, this.file);
    } catch (err) {
      rmSync(temp, { force: true });
      throw err;
    }
  }
}

/** Whether `answer` is still good at `now` (one from the future, a clock set back, is not). */
export function isFresh(answer: LoginShellAnswer, now: number): boolean {
  const age = now - answer.at;
  return age >= 0 && age < maxAgeOf(answer);
}

/** The cache file under Lathe's data folder. */
export function loginPathCache(latheHome: string): LoginPathCache {
  return new LoginPathCache(path.join(latheHome, "cache", "login-shell-path.json"));
}
