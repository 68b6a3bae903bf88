import { InvalidArgumentError } from "commander";

/** What `--since` and `--until` accept, said in every error. */
export const TIME_FORMS =
  'Use a date (2025-06-01), a date and time (2025-06-01T10:02:11 or "2025-06-01 10:02", UTC unless it ends with Z or an offset such as +02:00), or a time ago: a whole number with s, m, h, d or w (90s, 10m, 2h, 3d, 1w).';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

const RELATIVE = /^(\d{1,9})([smhdw])$/;
/** Date, then optionally a time (minutes at least), then optionally a zone: Z or ±HH:MM. */
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Milliseconds east of UTC for "Z", "+02:00", "-0530"; undefined when out of range. */
function offsetMs(zone: string | undefined): number | undefined {
  if (zone === undefined || zone.toUpperCase() === "Z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes) * 60_000;
}

/** An ISO date or date-time as milliseconds since the epoch; undefined when it names no real moment. */
function isoMs(value: string): number | undefined {
  const m = ISO.exec(value);
  if (!m) return undefined;
  const n = (i: number): number => Number(m[i] ?? 0);
  const [year, month, day, hour, minute, second] = [n(1), n(2), n(3), n(4), n(5), n(6)];
  const offset = offsetMs(m[8]);
  if (offset === undefined) return undefined;
  // ".5" is half a second: the fraction's digits are padded to milliseconds.
  const millis = Number((m[7] ?? "0").padEnd(3, "0"));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC rolls 2025-02-30 over to March: a date that does not come back whole does not exist.
  const back = new Date(utc);
  const whole =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    back.getUTCHours() === hour &&
    back.getUTCMinutes() === minute &&
    back.getUTCSeconds() === second;
  if (!whole) return undefined;
  return utc - offset;
}

/**
 * A moment as `--since`/`--until` take it: an ISO date or date-time (UTC unless it says its
 * zone, as Lathe prints times), or a time before `now` (`10m`, `2h`, `3d`). Milliseconds since
 * the epoch; anything else is an InvalidArgumentError naming the forms accepted.
 */
export function parseTimeBound(value: string, now: number): number {
  const text = value.trim();
  const relative = RELATIVE.exec(text);
  if (relative) return now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
  const at = isoMs(text);
  if (at === undefined)
    throw new InvalidArgumentError(`"${value}" is not a time Lathe understands. ${TIME_FORMS}`);
  return at;
}

/** What `--older-than` accepts, said in its error. */
export const AGE_FORMS = "Use a whole number above 0 with s, m, h, d or w: 30d (thirty days), 12h, 90m, 2w.";

/**
 * An age as `lathe audit prune --older-than` takes it (`30d`, `12h`): milliseconds. Anything
 * else, 0 included, is an InvalidArgumentError naming the forms accepted.
 */
export function parseAge(value: string): number {
  const relative = RELATIVE.exec(value.trim());
  const ms = relative ? Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS] : 0;
  if (ms <= 0) throw new InvalidArgumentError(`"${value}" is not an age Lathe understands. ${AGE_FORMS}`);
  return ms;
}

/** A moment as the audit table prints it: UTC, to the second. */
export function shownTime(ms: number): string {
  return `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`;
}
