// `--kubernetes-version`, the one setting of which Kubernetes release a command reproduces
// (src/api/versions.ts), shared by every command that takes it.
import {
  DEFAULT_KUBERNETES_VERSION,
  type ParsedKubernetesVersion,
  parseKubernetesVersion,
  SUPPORTED_KUBERNETES_VERSIONS,
} from "./versions.js";

export const KUBERNETES_VERSION_FLAG = "--kubernetes-version <version>";

export const KUBERNETES_VERSION_HELP = `the Kubernetes version whose HPA behaviour to reproduce: ${SUPPORTED_KUBERNETES_VERSIONS.join(", ")} (or a patch such as v1.37.2; default ${DEFAULT_KUBERNETES_VERSION})`;

/** The flag's value read, or the error line to print (naming the flag). */
export function readKubernetesVersionFlag(
  text: string,
): { ok: true; value: ParsedKubernetesVersion } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseKubernetesVersion(text) };
  } catch (error) {
    return { ok: false, error: `error: --kubernetes-version: ${(error as Error).message}` };
  }
}
