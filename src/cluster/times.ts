// The cluster writes the same few instants again and again (a pod's times at each of its
// stages, a Deployment status's "now", the creation times of pods made together): each is
// formatted once, not into a new Date and ISO string at every write.
import { rfc3339 } from "../api/time.js";

const SLOTS = 256;
const seconds = new Float64Array(SLOTS).fill(Number.NaN);
const texts = new Array<string>(SLOTS).fill("");

/** rfc3339(ms), remembered by second in a small direct-mapped table (rfc3339 is per second). */
export function timeText(ms: number): string {
  const second = Math.floor(ms / 1000);
  const slot = second & (SLOTS - 1);
  if (seconds[slot] === second) return texts[slot]!;
  const text = rfc3339(ms);
  seconds[slot] = second;
  texts[slot] = text;
  return text;
}
