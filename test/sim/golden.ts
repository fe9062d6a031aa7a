// Every example's `horizon simulate -o json` output, reduced to a SHA-256 of its records (wall
// time left out) and its summary: the byte-for-byte fingerprint speed work must keep
// (issue #17: "outputs byte-identical to today's on every example").
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { simulateCommand } from "../../src/cli/simulate.js";

export const EXAMPLES_DIR = join(import.meta.dirname, "../../examples");
export const GOLDEN_FILE = join(import.meta.dirname, "../fixtures/golden/examples.json");

export interface GoldenOutput {
  sha256: string;
  records: number;
  summary: unknown;
}

/** Examples that read a live server (a Prometheus range query) cannot be pinned. */
function offline(file: string): boolean {
  return !/^\s*-?\s*type:\s*prometheus\b/m.test(readFileSync(file, "utf8"));
}

export function exampleFiles(): string[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .filter((f) => offline(join(EXAMPLES_DIR, f)));
}

/** The recorded outputs are v1.34's (`--kubernetes-version 1.34`): they pin that version's
 * behaviour byte for byte; docs/versions.md says which examples the newer versions change. */
export async function goldenOutput(
  name: string,
  kubernetesVersion = "1.34",
): Promise<GoldenOutput> {
  let out = "";
  const err: string[] = [];
  const code = await simulateCommand(
    join(EXAMPLES_DIR, name),
    { set: [], compareSet: [], assert: [], output: "json", quiet: true, kubernetesVersion },
    {
      out: (chunk) => {
        out += chunk;
        return undefined;
      },
      err: (line) => err.push(line),
      interactive: false,
    },
  );
  if (code !== 0) throw new Error(`${name}: exit ${code}: ${err.join("\n")}`);
  const records = out
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string });
  const kept = records.map((r): { type: string } => {
    if (r.type !== "summary") return r;
    const { wallMs: _wallMs, ...summary } = r as { type: string; wallMs?: number };
    return summary;
  });
  const text = kept.map((r) => JSON.stringify(r)).join("\n");
  return {
    sha256: createHash("sha256").update(text).digest("hex"),
    records: kept.length,
    summary: kept.find((r) => r.type === "summary"),
  };
}

export async function goldenOutputs(): Promise<Record<string, GoldenOutput>> {
  const out: Record<string, GoldenOutput> = {};
  for (const name of exampleFiles()) out[name] = await goldenOutput(name);
  return out;
}

export function recordedGolden(): Record<string, GoldenOutput> {
  return existsSync(GOLDEN_FILE) ? JSON.parse(readFileSync(GOLDEN_FILE, "utf8")) : {};
}

/** The differences between outputs and what is recorded, one line each. */
export function compareGolden(outputs: Record<string, GoldenOutput>): string[] {
  const recorded = recordedGolden();
  const problems: string[] = [];
  for (const [name, output] of Object.entries(outputs)) {
    const want = recorded[name];
    if (!want) problems.push(`${name}: no recorded output (npm run golden -- --update)`);
    else if (want.sha256 !== output.sha256)
      problems.push(
        `${name}: output differs (${output.records} records, ${want.records} recorded)`,
      );
  }
  for (const name of Object.keys(recorded))
    if (!(name in outputs)) problems.push(`${name}: recorded, but no such example`);
  return problems;
}
