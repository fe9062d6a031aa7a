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

/** A chart's x value (seconds) in its legend: an offset from the start, or a UTC instant. */
export function xValue(seconds: number | null, elapsed: boolean): string {
  if (seconds === null || !Number.isFinite(seconds)) return "";
  return elapsed ? elapsedText(seconds) : utcText(seconds * 1000);
}

export function clock(at: number): string {
  return new Date(at).toLocaleTimeString([], {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}
