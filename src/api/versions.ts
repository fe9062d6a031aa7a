// The Kubernetes versions Horizon reproduces, chosen per run (`--kubernetes-version`,
// `spec.kubernetesVersion`). A behaviour that differs between them is a named switch, declared
// in the room of the rule it changes with `versionSwitches`, and looked up by version there
// (docs/versions.md lists every switch with its upstream PR).

/** Minor versions, oldest first. */
export const SUPPORTED_KUBERNETES_VERSIONS = ["1.34", "1.35", "1.36", "1.37"] as const;

export type KubernetesVersion = (typeof SUPPORTED_KUBERNETES_VERSIONS)[number];

/** The newest supported release: what a run reproduces unless told otherwise. */
export const DEFAULT_KUBERNETES_VERSION: KubernetesVersion = "1.37";

const ORDER: ReadonlyMap<string, number> = new Map(
  SUPPORTED_KUBERNETES_VERSIONS.map((v, index) => [v, index]),
);

export function isKubernetesVersion(text: string): text is KubernetesVersion {
  return ORDER.has(text);
}

// `1.37`, `v1.37`, `1.37.2`, `v1.37.2` (a pre-release or build suffix after the patch is kept
// in the git version, as in `v1.37.0-rc.1`).
const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+)([-+][0-9A-Za-z.+-]*)?)?$/;

export interface ParsedKubernetesVersion {
  /** The minor release whose behaviour applies. */
  version: KubernetesVersion;
  /** As `/version` prints it: `v1.37.2`, or `v1.37.0` when no patch was given. */
  gitVersion: string;
}

/**
 * Reads a version as the flag or a Scenario gives it. An unsupported or malformed value is an
 * Error that lists the supported versions.
 */
export function parseKubernetesVersion(text: string): ParsedKubernetesVersion {
  const match = VERSION.exec(text.trim());
  const minor = match ? `${Number(match[1])}.${Number(match[2])}` : "";
  if (!match || !isKubernetesVersion(minor)) {
    throw new Error(
      `unsupported Kubernetes version ${JSON.stringify(text)}: supported versions are ${SUPPORTED_KUBERNETES_VERSIONS.join(", ")}`,
    );
  }
  const patch = match[3] === undefined ? "0" : String(Number(match[3]));
  return { version: minor, gitVersion: `v${minor}.${patch}${match[4] ?? ""}` };
}

/** `a` is `b` or newer. */
export function versionAtLeast(a: KubernetesVersion, b: KubernetesVersion): boolean {
  return (ORDER.get(a) as number) >= (ORDER.get(b) as number);
}

/**
 * A room's behaviour switches: each name is on from the version given (the first release that
 * behaves the new way). `versionSwitches({ saturatingUsageRatio: "1.35" })("1.34")` is
 * `{ saturatingUsageRatio: false }`. The lookup is computed once per version.
 */
export function versionSwitches<const Name extends string>(
  since: Readonly<Record<Name, KubernetesVersion>>,
): (version: KubernetesVersion) => Readonly<Record<Name, boolean>> {
  const table = new Map<KubernetesVersion, Readonly<Record<Name, boolean>>>();
  for (const version of SUPPORTED_KUBERNETES_VERSIONS) {
    const row = {} as Record<Name, boolean>;
    for (const name of Object.keys(since) as Name[]) {
      row[name] = versionAtLeast(version, since[name]);
    }
    table.set(version, Object.freeze(row));
  }
  return (version) => table.get(version) as Readonly<Record<Name, boolean>>;
}
