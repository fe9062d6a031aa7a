// Shared pieces of the conformance suites: vector time (seconds relative to the evaluation
// instant) and quantity comparison by exact milli-value, as the vectors' README prescribes.
import { Quantity } from "../api/quantity.js";

/** The evaluation instant of every vector, in epoch milliseconds. */
export const NOW = Date.UTC(2026, 0, 1);

export function at(seconds: number): number {
  return NOW + seconds * 1000;
}

export type VectorOutcome = { ok: true } | { ok: false; diff: string };

export const pass: VectorOutcome = { ok: true };

export function fail(diff: string): VectorOutcome {
  return { ok: false, diff };
}

export function milli(value: string | number): bigint {
  return Quantity.parse(value).milliValue();
}

/** Collects differences between expected and actual fields into one outcome. */
export class Differences {
  private readonly lines: string[] = [];

  check(field: string, expected: unknown, actual: unknown): this {
    const e = JSON.stringify(expected, bigintReplacer);
    const a = JSON.stringify(actual, bigintReplacer);
    if (e !== a) this.lines.push(`${field}: expected ${e}, got ${a}`);
    return this;
  }

  note(line: string): this {
    this.lines.push(line);
    return this;
  }

  outcome(): VectorOutcome {
    return this.lines.length === 0 ? pass : fail(this.lines.join("; "));
  }
}

function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? `${value}` : value;
}

export function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}
