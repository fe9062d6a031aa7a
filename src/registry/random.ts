// Seeded randomness: every entity (pod, workload, metric) gets its own stream derived from the
// scenario seed and the entity's identity, so two runs that differ only in HPA settings see the
// same traffic and the same jitter for the same pods, and equal inputs give equal results.

/** FNV-1a (32-bit) of a string, mixed with a seed. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return mix32(h);
}

/** A 32-bit finalizer (murmur3 fmix32): spreads nearby inputs over the whole range. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The seed of one entity's stream: (scenario seed, identity). */
export function streamSeed(seed: number, identity: string): number {
  return hashString(identity, mix32(seed >>> 0 || 0x9e3779b9));
}

/**
 * A stateless draw in [0, 1) for (stream, index): the jitter of a pod's k-th sample does not
 * depend on how many other draws happened before it.
 */
export function noise(stream: number, index: number, salt = 0): number {
  return noiseBits(stream, index, salt) / 4294967296;
}

/** The 32 bits behind `noise`. */
export function noiseBits(stream: number, index: number, salt = 0): number {
  return mix32((stream ^ Math.imul(index + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x7feb352d)) >>> 0);
}

/** A sequential generator (mulberry32) for draws that happen in a fixed order per entity. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

// Upstream's rand.SafeEncodeString alphabet: no vowels (no words) and no look-alike characters.
const ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** Maps each character to the safe alphabet (upstream's pod-template-hash encoding). */
export function safeEncode(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) out += ALPHANUMS[text.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

/** `n` characters from the safe alphabet, as generateName suffixes (5 upstream). */
export function randomSuffix(random: Pick<Random, "int">, n = 5): string {
  let out = "";
  for (let i = 0; i < n; i++) out += ALPHANUMS[random.int(ALPHANUMS.length)];
  return out;
}

/** Math.random as a Random's `int`: for names the API server generates (not reproducible upstream either). */
export const UNSEEDED: Pick<Random, "int"> = { int: (n: number) => Math.floor(Math.random() * n) };

/** A deterministic RFC 4122-shaped UID from an identity string. */
export function uidFor(identity: string): string {
  const a = hashString(identity, 1);
  const b = hashString(identity, 2);
  const c = hashString(identity, 3);
  const d = hashString(identity, 4);
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  const s = hex(a) + hex(b) + hex(c) + hex(d);
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-${((Number.parseInt(s[16]!, 16) & 3) | 8).toString(16)}${s.slice(17, 20)}-${s.slice(20, 32)}`;
}

/** Key-sorted JSON: the same object always hashes the same. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const keys = Object.keys(value as Record<string, unknown>)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`).join(",")}}`;
}
