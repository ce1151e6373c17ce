import type { CronJob } from '../../generated/types/batch/v1';
import type { CronSchedule } from './cron';

/** Past this many missed start times the controller warns, as kube's TooManyMissedTimes. */
export const TOO_MANY_MISSED = 100;

/** nextScheduleTimeDuration adds this to a wake-up, so that the schedule time has passed when it comes. */
export const NEXT_SCHEDULE_DELTA_MS = 100;

/**
 * mostRecentScheduleTime: the last time the schedule fired after the CronJob last started a job
 * (or was created), no earlier than startingDeadlineSeconds ago, and how many such times there were.
 */
export function mostRecentScheduleTime(cronJob: CronJob, schedule: CronSchedule, nowMs: number): { time: number | null; missed: number } {
  let earliest = Date.parse(cronJob.status?.lastScheduleTime ?? cronJob.metadata.creationTimestamp ?? '') || nowMs;
  const deadline = cronJob.spec?.startingDeadlineSeconds;
  if (deadline != null) earliest = Math.max(earliest, nowMs - deadline * 1000);
  let time: number | null = null;
  let missed = 0;
  for (let t = schedule.next(earliest); t !== null && t <= nowMs; t = schedule.next(t)) {
    time = t;
    // Only the count matters past the warning threshold; the last one is found by stepping on.
    if (++missed > TOO_MANY_MISSED * 10) break;
  }
  return { time, missed };
}

/** getJobName: `<cronjob>-<scheduled time in minutes since the epoch>`. */
export const jobNameFor = (cronJob: CronJob, scheduledMs: number): string => `${cronJob.metadata.name}-${Math.floor(scheduledMs / 60_000)}`;

/** Go's time.RFC1123Z, as the MissSchedule event prints the time in UTC. */
export function rfc1123z(ms: number): string {
  const d = new Date(ms);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

/** time.RFC3339 of an instant in a zone: `2026-11-28T03:00:00Z`, or with the zone's offset. */
export function rfc3339In(ms: number, timeZone: string | undefined): string {
  if (!timeZone || timeZone === 'UTC') return new Date(ms - (ms % 1000)).toISOString().replace('.000Z', 'Z');
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour) % 24, Number(parts.minute), Number(parts.second));
  const offsetMin = Math.round((wall - (ms - (ms % 1000))) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const offset = offsetMin === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${parts.year}-${parts.month}-${parts.day}T${String(Number(parts.hour) % 24).padStart(2, '0')}:${parts.minute}:${parts.second}${offset}`;
}
