// `horizon validate`: reads HPA manifests the way `kubectl create` and kube-apiserver would
// (a List's items; the namespace filled in; decoded strictly: wrong JSON types and unknown
// fields refused; any served or legacy autoscaling version, converted to v2, defaulted,
// validated) and reports every problem with its field path. Exit 0: all valid; 1: some invalid;
// 2: a file could not be read, parsed or decoded.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { readHorizontalPodAutoscaler } from "../api/conversion.js";
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import { FeatureGates } from "../api/featuregates.js";
import { isRecord } from "../api/json.js";
import { readKubernetesVersionFlag } from "../api/kubernetes-version-flag.js";
import { fieldErrorMessage, validateHorizontalPodAutoscaler } from "../api/validation.js";
import type { KubernetesVersion } from "../api/versions.js";
import { strictDecodeProblems } from "../apiserver/strictdecode.js";
import { annotationFieldIssues } from "../core/extensions/annotations.js";
import { formatPath } from "../sim/set-path.js";

/** A document's objects: a `kind: List` (what `kubectl get -o yaml` prints) is its items, as
 * `kubectl create -f` reads it. */
function objectsOf(value: unknown): { object: unknown; item?: number }[] {
  if (isRecord(value) && value.kind === "List" && value.apiVersion === "v1") {
    const items = Array.isArray(value.items) ? value.items : [];
    return items.map((object, item) => ({ object, item }));
  }
  return [{ object: value }];
}

export function validateCommand(
  files: string[],
  options: { featureGates?: string; kubernetesVersion?: string },
  print: (line: string) => void = console.log,
  printError: (line: string) => void = console.error,
): number {
  let version: KubernetesVersion | undefined;
  if (options.kubernetesVersion !== undefined) {
    const read = readKubernetesVersionFlag(options.kubernetesVersion);
    if (!read.ok) {
      printError(read.error);
      return 2;
    }
    version = read.value.version;
  }
  let featureGates: FeatureGates;
  try {
    featureGates = options.featureGates
      ? FeatureGates.parse(options.featureGates, FeatureGates.defaults(version))
      : FeatureGates.defaults(version);
  } catch (error) {
    printError(`error: --feature-gates: ${(error as Error).message}`);
    return 2;
  }
  let invalid = 0;
  let checked = 0;
  let undecodable = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file === "-" ? 0 : file, "utf8");
    } catch (error) {
      printError(`error: cannot read ${file}: ${(error as Error).message}`);
      return 2;
    }
    const documents = parseAllDocuments(text);
    for (const [index, document] of documents.entries()) {
      if (document.errors.length > 0) {
        const e = document.errors[0]!;
        const pos = e.linePos?.[0];
        printError(`error: ${file}${pos ? `:${pos.line}:${pos.col}` : ""}: ${e.message}`);
        return 2;
      }
      for (const { object, item } of objectsOf(document.toJS())) {
        if (!isRecord(object) || object.kind !== "HorizontalPodAutoscaler") continue;
        const name = isRecord(object.metadata) ? object.metadata.name : undefined;
        const where = `${file} (document ${index + 1}, ${item === undefined ? "" : `items[${item}], `}${typeof name === "string" ? name : "<no name>"})`;
        const result = validateObject(object, where, featureGates, print, printError);
        if (result === "undecodable") undecodable++;
        else if (result !== "valid") invalid++;
        if (result === "valid" || result === "invalid") checked++;
      }
    }
  }
  if (checked === 0 && invalid === 0 && undecodable === 0) {
    printError("error: no HorizontalPodAutoscaler found in the input");
    return 2;
  }
  return undecodable > 0 ? 2 : invalid > 0 ? 1 : 0;
}

/** One HPA manifest, checked and reported. */
function validateObject(
  object: Record<string, unknown>,
  where: string,
  featureGates: FeatureGates,
  print: (line: string) => void,
  printError: (line: string) => void,
): "valid" | "invalid" | "unreadable" | "undecodable" {
  const decodeError = (problems: ReturnType<typeof strictDecodeProblems>) => {
    for (const p of problems) printError(`error: ${where}: ${formatPath(p.path)}: ${p.message}`);
    return problems.length > 0;
  };
  if (typeof object.apiVersion === "string") {
    if (decodeError(strictDecodeProblems("HorizontalPodAutoscaler", object.apiVersion, object)))
      return "undecodable";
  }
  const read = readHorizontalPodAutoscaler(object);
  if (!read.ok) {
    printError(`error: ${where}: ${read.error}`);
    return "unreadable";
  }
  for (const warning of read.value.warnings) printError(`Warning: ${where}: ${warning}`);
  if (object.apiVersion !== "autoscaling/v1" && object.apiVersion !== "autoscaling/v2") {
    // A legacy version, converted: checked in the autoscaling/v2 shape it now has.
    const converted = read.value.hpa as unknown as Record<string, unknown>;
    if (decodeError(strictDecodeProblems("HorizontalPodAutoscaler", "autoscaling/v2", converted)))
      return "undecodable";
  }
  // kubectl fills in the namespace (its context's; here, with no context, "default").
  const metadata = read.value.hpa.metadata ?? {};
  read.value.hpa.metadata = { ...metadata, namespace: metadata.namespace || "default" };
  const hpa = setDefaultsHorizontalPodAutoscaler(read.value.hpa);
  // Horizon's horizon.dev/ annotations are checked as its API server checks them.
  const extensions = annotationFieldIssues(hpa);
  for (const warning of extensions.warnings) printError(`Warning: ${where}: ${warning}`);
  const errors = [...validateHorizontalPodAutoscaler(hpa, { featureGates }), ...extensions.errors];
  if (errors.length === 0) {
    print(`${where}: valid`);
    return "valid";
  }
  print(`${where}: invalid`);
  for (const error of errors) print(`  ${fieldErrorMessage(error)}`);
  return "invalid";
}
