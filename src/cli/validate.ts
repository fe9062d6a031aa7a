// `horizon validate`: reads HPA manifests the way kube-apiserver would (any served or legacy
// autoscaling version, converted to v2, defaulted, validated) and reports every problem with
// its field path. Exit 0: all valid; 1: some invalid; 2: a file could not be read or parsed.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { readHorizontalPodAutoscaler } from "../api/conversion.js";
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import { FeatureGates } from "../api/featuregates.js";
import { fieldErrorMessage, validateHorizontalPodAutoscaler } from "../api/validation.js";
import { annotationFieldIssues } from "../core/extensions/annotations.js";

export function validateCommand(
  files: string[],
  options: { featureGates?: string },
  print: (line: string) => void = console.log,
  printError: (line: string) => void = console.error,
): number {
  let featureGates: FeatureGates;
  try {
    featureGates = options.featureGates
      ? FeatureGates.parse(options.featureGates)
      : FeatureGates.defaults();
  } catch (error) {
    printError(`error: --feature-gates: ${(error as Error).message}`);
    return 2;
  }
  let invalid = 0;
  let checked = 0;
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
      const object = document.toJS() as { kind?: string; metadata?: { name?: string } } | null;
      if (object?.kind !== "HorizontalPodAutoscaler") continue;
      const where = `${file} (document ${index + 1}, ${object.metadata?.name ?? "<no name>"})`;
      const read = readHorizontalPodAutoscaler(object);
      if (!read.ok) {
        printError(`error: ${where}: ${read.error}`);
        invalid++;
        continue;
      }
      for (const warning of read.value.warnings) printError(`Warning: ${where}: ${warning}`);
      checked++;
      const hpa = setDefaultsHorizontalPodAutoscaler(read.value.hpa);
      // Horizon's horizon.dev/ annotations are checked as its API server checks them.
      const extensions = annotationFieldIssues(hpa);
      for (const warning of extensions.warnings) printError(`Warning: ${where}: ${warning}`);
      const errors = [
        ...validateHorizontalPodAutoscaler(hpa, { featureGates }),
        ...extensions.errors,
      ];
      if (errors.length === 0) {
        print(`${where}: valid`);
        continue;
      }
      invalid++;
      print(`${where}: invalid`);
      for (const error of errors) print(`  ${fieldErrorMessage(error)}`);
    }
  }
  if (checked === 0 && invalid === 0) {
    printError("error: no HorizontalPodAutoscaler found in the input");
    return 2;
  }
  return invalid > 0 ? 1 : 0;
}
