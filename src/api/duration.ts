// Kubernetes durations (metav1.Duration, as Go's time.ParseDuration / Duration.String()):
// "15s", "5m0s", "1h30m", "300ms", "1.5h". Horizon keeps durations as milliseconds.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export type ParsedDuration = { ok: true; ms: number } | { ok: false; error: string };

/** Parses Go duration syntax. A bare "0" is allowed, as in Go. */
export function parseDuration(text: string): ParsedDuration {
  const input = text.trim();
  const hint = " (expected e.g. 15s, 5m0s, 1h30m, 300ms)";
  // Go's own words for each failure (time.ParseDuration), then a hint.
  const bad = (what = `invalid duration "${text}"`): ParsedDuration => ({
    ok: false,
    error: `time: ${what}${hint}`,
  });
  if (input === "") return bad();
  let rest = input;
  let sign = 1;
  if (rest[0] === "-" || rest[0] === "+") {
    if (rest[0] === "-") sign = -1;
    rest = rest.slice(1);
  }
  if (rest === "0") return { ok: true, ms: 0 };
  if (rest === "") return bad();
  let total = 0;
  const part = /^(\d+\.?\d*|\.\d+)([^\d.]*)/;
  while (rest.length > 0) {
    const match = part.exec(rest);
    if (!match) return bad();
    const unit = match[2]!;
    if (unit === "") return bad(`missing unit in duration "${text}"`);
    const unitMs = UNIT_MS[unit];
    if (unitMs === undefined) return bad(`unknown unit "${unit}" in duration "${text}"`);
    total += Number(match[1]) * unitMs;
    rest = rest.slice(match[0].length);
  }
  return { ok: true, ms: sign * total };
}

/** Formats like Go's Duration.String(): 300000 → "5m0s", 15000 → "15s", 1500 → "1.5s". */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const negative = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1000) {
    // Sub-second durations print in the largest unit below a second, as Go does.
    if (rest >= 1) out = `${trimFraction(rest)}ms`;
    else if (rest >= 1e-3) out = `${trimFraction(rest * 1e3)}µs`;
    else out = `${trimFraction(rest * 1e6)}ns`;
  } else {
    const hours = Math.floor(rest / 3_600_000);
    rest -= hours * 3_600_000;
    const minutes = Math.floor(rest / 60_000);
    rest -= minutes * 60_000;
    const seconds = `${trimFraction(rest / 1000)}s`;
    if (hours > 0) out = `${hours}h${minutes}m${seconds}`;
    else if (minutes > 0) out = `${minutes}m${seconds}`;
    else out = seconds;
  }
  return negative ? `-${out}` : out;
}

function trimFraction(value: number): string {
  return String(Number(value.toFixed(9)));
}
