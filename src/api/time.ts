// Kubernetes writes metav1.Time with second precision (RFC 3339); objects carry these strings
// and the cluster's own bookkeeping keeps the same truncated instants, so both agree.

export function truncateToSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

// The cluster writes the same few instants again and again (a pod's times at each of its stages,
// a Deployment status's "now", the creation times of pods made together, the controller's
// condition times): each second is formatted once, remembered in a small direct-mapped table,
// not into a new Date and ISO string at every write.
const TEXT_SLOTS = 256;
const slotSeconds = new Float64Array(TEXT_SLOTS).fill(Number.NaN);
const slotTexts = new Array<string>(TEXT_SLOTS).fill("");

/** RFC 3339 at second precision: `2026-01-01T12:00:00Z`. */
export function rfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  const slot = second & (TEXT_SLOTS - 1);
  if (slotSeconds[slot] === second) return slotTexts[slot]!;
  const text = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
  slotSeconds[slot] = second;
  slotTexts[slot] = text;
  return text;
}

/** metav1.MicroTime (events' eventTime): `2026-01-01T12:00:00.000000Z`. */
export function rfc3339Micro(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString();
  return `${iso.slice(0, 23)}000Z`;
}
