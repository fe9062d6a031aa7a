// Times as people read them: "3m ago"; a run's time as the CLI, the report and explain say it
// (an offset from the run's start, "18h0m15s"); and an instant with its date, in UTC.
export function ago(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 ? ` ${m % 60}m` : ""} ago`;
  return `${Math.floor(h / 24)}d ago`;
}

/** Seconds as the simulator prints durations: 1h2m3s, 4m0s, 15s. */
export function elapsedText(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h${m}m${rest}s`;
  if (m > 0) return `${m}m${rest}s`;
  return `${rest}s`;
}

/** An instant with its date, the same in every browser and time zone: 2026-01-01 18:00:15 UTC. */
export function utcText(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Pixels right of a chart's plot: half its widest x label, which centres on the last tick. */
export const X_LABEL_ROOM = 40;

/**
 * When a sync or an event happened: for a simulation (`start`, its first instant, epoch ms) its
 * offset from the start as the CLI prints it ("18h0m15s"); live, the UTC instant with its date.
 */
export function runTime(at: number, start: number | null): string {
  return start === null ? utcText(at) : elapsedText((at - start) / 1000);
}

/**
 * A live chart's x ticks (epoch seconds) in UTC: the time of day (seconds where ticks are closer
 * than a minute), and under the first tick and where the day changes, the date.
 */
export function utcTicks(ticks: number[], incr: number): string[] {
  let day = "";
  return ticks.map((t) => {
    const iso = new Date(t * 1000).toISOString();
    const time = iso.slice(11, incr < 60 ? 19 : 16);
    const date = iso.slice(0, 10);
    if (date === day) return time;
    day = date;
    return `${time}\n${date}`;
  });
}
