// Address management of the embedded cluster's network (upstream: the node IPAM and the
// Service ClusterIP allocator). Both ranges lie in 127.0.0.0/8, which Linux routes entirely to
// loopback, so every pod and Service address can be bound on this machine. Allocation takes
// the lowest free address, so equal histories give equal addresses, and a restored cluster
// marks the addresses its stored objects hold as taken.

export const DEFAULT_POD_CIDR = "127.64.0.0/16";
export const DEFAULT_SERVICE_CIDR = "127.65.0.0/16";

/** A range needs at least this many usable addresses (a /28 less network and broadcast). */
const MIN_ADDRESSES = 14;

export interface Cidr {
  text: string;
  /** First address (the network address) as an unsigned 32-bit number. */
  base: number;
  size: number;
}

export type ParsedCidr = { ok: true; cidr: Cidr } | { ok: false; error: string };

export function ipToNumber(ip: string): number | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    n = n * 256 + octet;
  }
  return n;
}

export function numberToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

/**
 * Parses an IPv4 CIDR that must lie in the loopback range 127.0.0.0/8 and hold at least 14
 * addresses; `flag` names the flag in errors.
 */
export function parseLoopbackCidr(text: string, flag: string): ParsedCidr {
  const match = /^([0-9.]+)\/(\d{1,2})$/.exec(text.trim());
  const ip = match ? ipToNumber(match[1]!) : null;
  const bits = match ? Number(match[2]) : Number.NaN;
  if (!match || ip === null || !(bits >= 0 && bits <= 32)) {
    return { ok: false, error: `${flag}: "${text}" is not an IPv4 CIDR such as 127.64.0.0/16` };
  }
  const size = 2 ** (32 - bits);
  const base = ip - (ip % size);
  if (base !== ip) {
    return {
      ok: false,
      error: `${flag}: "${text}" has host bits set (the range starts at ${numberToIp(base)}/${bits})`,
    };
  }
  if (bits < 8 || base >>> 24 !== 127) {
    return {
      ok: false,
      error: `${flag}: "${text}" is not inside the loopback range 127.0.0.0/8 (pods and Services listen on this machine's loopback addresses)`,
    };
  }
  if (size - 2 < MIN_ADDRESSES) {
    return {
      ok: false,
      error: `${flag}: "${text}" is too small: it needs at least ${MIN_ADDRESSES} usable addresses (a /28 or larger)`,
    };
  }
  return { ok: true, cidr: { text: text.trim(), base, size } };
}

export function cidrContains(cidr: Cidr, ip: string): boolean {
  const n = ipToNumber(ip);
  return n !== null && n >= cidr.base && n < cidr.base + cidr.size;
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  return a.base < b.base + b.size && b.base < a.base + a.size;
}

/** The first host address of a range: the `kubernetes` Service's ClusterIP in a Service range. */
export function firstAddress(cidr: Cidr): string {
  return numberToIp(cidr.base + 1);
}

export interface IpAllocatorOptions {
  /**
   * Never hand out the first host address on its own (a client may still ask for it):
   * kube-apiserver keeps it for the `kubernetes` Service (the Service range's allocator).
   */
  keepFirst?: boolean;
}

/** The addresses of one range: the network and broadcast addresses are never given out. */
export class IpAllocator {
  readonly cidr: Cidr;
  readonly #used = new Set<number>();
  /** The lowest address `allocate` may give. */
  readonly #floor: number;
  /** No free address below this one (allocation scans upwards from it). */
  #low: number;

  constructor(cidr: Cidr, options: IpAllocatorOptions = {}) {
    this.cidr = cidr;
    this.#floor = cidr.base + (options.keepFirst ? 2 : 1);
    this.#low = this.#floor;
  }

  /** The lowest free address, or null when the range is full. */
  allocate(): string | null {
    const end = this.cidr.base + this.cidr.size - 1;
    for (let n = this.#low; n < end; n++) {
      if (!this.#used.has(n)) {
        this.#used.add(n);
        this.#low = n + 1;
        return numberToIp(n);
      }
    }
    return null;
  }

  /** Marks an address taken (a restored object's, or one a client asked for); false if it is not free. */
  reserve(ip: string): boolean {
    if (!this.contains(ip)) return false;
    const n = ipToNumber(ip)!;
    if (n === this.cidr.base || n === this.cidr.base + this.cidr.size - 1) return false;
    if (this.#used.has(n)) return false;
    this.#used.add(n);
    return true;
  }

  release(ip: string): void {
    const n = ipToNumber(ip);
    if (n === null || !this.#used.delete(n)) return;
    if (n < this.#low) this.#low = Math.max(n, this.#floor);
  }

  isUsed(ip: string): boolean {
    const n = ipToNumber(ip);
    return n !== null && this.#used.has(n);
  }

  contains(ip: string): boolean {
    return cidrContains(this.cidr, ip);
  }
}
