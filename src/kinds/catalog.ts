// What the API server calls each kind: the resource (plural.group) used in error messages such
// as `deployments.apps "web" not found`, and which kinds are cluster-scoped, read from the API
// server's kinds registry.
import { KIND_LIST, KINDS, kindDefinition } from "./registry.js";
import type { DefaultGcPolicy, GenerationRule } from "./types.js";

/** The built-in kinds the API server serves. */
export const KNOWN_KINDS: ReadonlySet<string> = new Set(KIND_LIST.map((d) => d.kind));

/** The plural resource name of a known kind (`deployments`), undefined for others. */
export function knownPluralOf(kind: string): string | undefined {
  return kindDefinition(kind)?.resource;
}

/** The default garbage-collection policy of a known kind in its group's current version. */
export function knownGcPolicy(kind: string): { policy: DefaultGcPolicy; apiVersion: string } {
  const known = kindDefinition(kind);
  if (!known) return { policy: "None", apiVersion: "" };
  const version = known.versions[0]?.version ?? "v1";
  return {
    policy: known.gcPolicy,
    apiVersion: known.group ? `${known.group}/${version}` : version,
  };
}

/** Lower-case plural of a kind, as the RESTMapper guesses it (Ingress → ingresses). */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith("s") || lower.endsWith("x") || lower.endsWith("ch")) return `${lower}es`;
  if (lower.endsWith("y") && !/[aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** `deployments.apps`, `pods`, ...; a kind not listed gets its guessed plural and the group. */
export function resourceOf(kind: string, apiVersion?: string): string {
  const known = kindDefinition(kind);
  if (known) return known.group ? `${known.resource}.${known.group}` : known.resource;
  const group = apiVersion?.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return group ? `${pluralOf(kind)}.${group}` : pluralOf(kind);
}

// The built-in kinds' scopes never change: one lookup on the store's paths (every get and
// write asks), not the registry's own-property test and keyed read.
const BUILT_IN_CLUSTER_SCOPED = new Map<string, boolean>(
  Object.entries(KINDS).map(([kind, definition]) => [kind, definition.namespaced === false]),
);

export function isClusterScoped(kind: string): boolean {
  const builtIn = BUILT_IN_CLUSTER_SCOPED.get(kind);
  if (builtIn !== undefined) return builtIn;
  return kindDefinition(kind)?.namespaced === false;
}

const BUILT_IN_GENERATION = new Map<string, GenerationRule | undefined>(
  Object.entries(KINDS).map(([kind, definition]) => [kind, definition.generation]),
);

/** How the kind keeps metadata.generation; undefined when the server never sets it. */
export function generationRuleOf(kind: string): GenerationRule | undefined {
  if (BUILT_IN_GENERATION.has(kind)) return BUILT_IN_GENERATION.get(kind);
  return kindDefinition(kind)?.generation;
}

/** Group of an apiVersion ("apps/v1" → "apps", "v1" → ""). */
export function groupOf(apiVersion: string | undefined): string {
  if (!apiVersion?.includes("/")) return "";
  return apiVersion.slice(0, apiVersion.indexOf("/"));
}
