// Runs conformance vector files (schema in test/fixtures/conformance/README.md): every vector of
// every suite, one line per failing vector, and a closing `N passed, N failed`.
import { readFileSync } from "node:fs";
import {
  isKubernetesVersion,
  type KubernetesVersion,
  SUPPORTED_KUBERNETES_VERSIONS,
} from "../api/versions.js";
import { runBehaviorDefaulting, runValidation } from "./api-suites.js";
import { fail, type VectorOutcome } from "./common.js";
import { runNormalization } from "./normalization.js";
import { runPodGrouping, runRequestSummation } from "./pod-suites.js";
import { runReplicaCalculation } from "./replica-calculation.js";

// biome-ignore lint/suspicious/noExplicitAny: each suite checks its own vector shape.
type SuiteRunner = (vector: any, version: KubernetesVersion) => VectorOutcome;

/** The version a vector holds for when neither it nor its file says (the set was checked
 * against v1.34's behaviour). */
export const VECTOR_DEFAULT_VERSIONS: readonly KubernetesVersion[] = ["1.34"];

/**
 * The versions a vector runs under: its `kubernetesVersions`, else its file's, else v1.34. An
 * entry that is not a supported version is an Error naming it.
 */
function versionsOf(listed: unknown, where: string): readonly KubernetesVersion[] | undefined {
  if (listed === undefined) return undefined;
  if (!Array.isArray(listed) || listed.length === 0) {
    throw new Error(`${where}kubernetesVersions: must be a non-empty list of versions`);
  }
  for (const v of listed) {
    if (typeof v !== "string" || !isKubernetesVersion(v)) {
      throw new Error(
        `${where}kubernetesVersions: ${JSON.stringify(v)} is not one of ${SUPPORTED_KUBERNETES_VERSIONS.join(", ")}`,
      );
    }
  }
  return listed as KubernetesVersion[];
}

export const SUITES: Record<string, SuiteRunner> = {
  replicaCalculation: runReplicaCalculation,
  podGrouping: runPodGrouping,
  requestSummation: runRequestSummation,
  normalization: runNormalization,
  behaviorDefaulting: runBehaviorDefaulting,
  validation: runValidation,
};

export interface VectorResult {
  file: string;
  suite: string;
  id: string;
  outcome: VectorOutcome;
}

export interface FileResult {
  file: string;
  /** Set when the file could not be read or is not a vector file. */
  error?: string;
  results: VectorResult[];
}

/** `versions` runs every vector under these versions instead of the ones it lists (to check
 * which vectors of one version hold for another). */
export function runVectorFile(
  file: string,
  options: { versions?: readonly KubernetesVersion[] } = {},
): FileResult {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return { file, error: `cannot read ${file}: ${(error as Error).message}`, results: [] };
  }
  const doc = document as { suite?: unknown; vectors?: unknown; kubernetesVersions?: unknown };
  if (
    typeof doc !== "object" ||
    doc === null ||
    typeof doc.suite !== "string" ||
    !Array.isArray(doc.vectors)
  ) {
    return {
      file,
      error: `${file}: not a vector file (expected {"suite": ..., "vectors": [...]})`,
      results: [],
    };
  }
  const suite = doc.suite;
  const runner = SUITES[suite];
  if (!runner) {
    return {
      file,
      error: `${file}: unknown suite "${suite}" (known: ${Object.keys(SUITES).join(", ")})`,
      results: [],
    };
  }
  let fileVersions: readonly KubernetesVersion[];
  try {
    fileVersions = versionsOf(doc.kubernetesVersions, "") ?? VECTOR_DEFAULT_VERSIONS;
  } catch (error) {
    return { file, error: `${file}: ${(error as Error).message}`, results: [] };
  }
  const results: VectorResult[] = [];
  doc.vectors.forEach((vector: { id?: string; kubernetesVersions?: unknown }, index: number) => {
    const id = vector?.id ?? `#${index}`;
    let versions: readonly KubernetesVersion[];
    try {
      versions = options.versions ?? versionsOf(vector?.kubernetesVersions, "") ?? fileVersions;
    } catch (error) {
      results.push({ file, suite, id, outcome: fail((error as Error).message) });
      return;
    }
    // A vector that holds for several versions is one result per version, `id@version`.
    for (const version of versions) {
      let outcome: VectorOutcome;
      try {
        outcome = runner(vector, version);
      } catch (error) {
        outcome = fail(malformedVector(runner, vector, version, error));
      }
      results.push({ file, suite, id: versions.length > 1 ? `${id}@${version}` : id, outcome });
    }
  });
  return { file, results };
}

/**
 * Why a vector made its suite throw, naming the field at fault rather than printing a stack:
 * the vector runs again read through a proxy, and the last field it read before the same error
 * is the one missing or of the wrong shape. Only vectors that threw run twice.
 */
function malformedVector(
  runner: SuiteRunner,
  vector: unknown,
  version: KubernetesVersion,
  error: unknown,
): string {
  const text = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  let last: { path: string; value: unknown } | null = null;
  const wrap = (value: unknown, path: string): unknown => {
    if (typeof value !== "object" || value === null) return value;
    return new Proxy(value, {
      get(target, key, receiver) {
        const read = Reflect.get(target, key, receiver);
        const index = typeof key === "string" && /^\d+$/.test(key);
        // Array methods and length are not fields of the vector.
        if (typeof key === "symbol" || (Array.isArray(target) && !index)) return read;
        const field = index ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`;
        last = { path: field, value: read };
        return wrap(read, field);
      },
    });
  };
  let again: unknown = null;
  try {
    runner(wrap(vector, ""), version);
  } catch (thrown) {
    again = thrown;
  }
  const found = last as { path: string; value: unknown } | null;
  if (found === null || text(again) !== text(error)) return `malformed vector (${text(error)})`;
  const value =
    found.value === undefined ? "missing" : `got ${JSON.stringify(found.value)?.slice(0, 80)}`;
  return `malformed vector: field ${found.path}: ${value} (${text(error)})`;
}

/** Runs the files and prints the report; returns the process exit code. */
export function runConformance(
  files: string[],
  print: (line: string) => void = console.log,
): number {
  if (files.length === 0) {
    print("usage: npm run conformance -- FILE.json [FILE.json ...]");
    return 2;
  }
  let passed = 0;
  let failed = 0;
  let unreadable = 0;
  for (const file of files) {
    const result = runVectorFile(file);
    if (result.error) {
      unreadable++;
      print(`ERROR ${result.error}`);
      continue;
    }
    for (const r of result.results) {
      if (r.outcome.ok) passed++;
      else {
        failed++;
        print(`FAIL ${r.suite}/${r.id}: ${r.outcome.diff}`);
      }
    }
  }
  print(`${passed} passed, ${failed} failed`);
  return failed > 0 || unreadable > 0 ? 1 : 0;
}
