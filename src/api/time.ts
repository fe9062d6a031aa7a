// Kubernetes writes metav1.Time with second precision (RFC 3339); objects carry these strings
// and the cluster's own bookkeeping keeps the same truncated instants, so both agree.

export function truncateToSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** RFC 3339 at second precision: `2026-01-01T12:00:00Z`. */
export function rfc3339(ms: number): string {
  const truncated = truncateToSecond(ms);
  // The cluster stamps many objects of one instant (a simulated run: a Date and toISOString
  // per pod and status change showed in its profile): the last instant is formatted once.
  if (truncated === lastRfc3339.ms) return lastRfc3339.text;
  const text = `${new Date(truncated).toISOString().slice(0, 19)}Z`;
  lastRfc3339.ms = truncated;
  lastRfc3339.text = text;
  return text;
}

const lastRfc3339 = { ms: Number.NaN, text: "" };

/** metav1.MicroTime (events' eventTime): `2026-01-01T12:00:00.000000Z`. */
export function rfc3339Micro(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString();
  return `${iso.slice(0, 23)}000Z`;
}
