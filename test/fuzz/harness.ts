// The API server fuzz harness (fast-check, seeded): for every served kind and write verb
// (create, update, merge / JSON / strategic merge patch, server-side apply), a valid object is
// mutated (wrong types, nulls, huge and negative numbers, deep nesting, unknown fields, removed
// fields, oversize strings) and sent over HTTP. Invariants, as issue #14 lists them:
// - never a 5xx;
// - a non-2xx answer stores nothing (the store's resourceVersion does not move: no controller
//   runs in the background while the cases run);
// - every stored object can be read, read as a Table, listed (in its namespace and across all),
//   and watched;
// - afterwards `kubectl get -o json` and `kubectl describe` work on every kind, and the embedded
//   cluster's controllers and Horizon's HPA controller run over the stored objects without an
//   error.
// Used by test/fuzz/fuzz.test.ts (a short run in `npm test`) and scripts/fuzz.ts (long runs).
import http from "node:http";
import fc from "fast-check";
import type { KubeObject } from "../../src/api/types.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { serveHttp } from "../../src/apiserver/http.js";
import { renderKubeconfig } from "../../src/apiserver/kubeconfig.js";
import { MAX_REQUEST_BODY_BYTES } from "../../src/apiserver/limits.js";
import { TABLE_CONTENT_TYPE } from "../../src/apiserver/tables.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { RealtimeDriver } from "../../src/cluster/realtime.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario } from "../cluster/builders.js";

export const NAMESPACE = "fuzz";

type Json = ReturnType<typeof JSON.parse>;

interface KindCase {
  kind: string;
  /** URL prefix of the collection (namespaced kinds in NAMESPACE). */
  collection: string;
  /** Across all namespaces (namespaced kinds only). */
  allNamespaces?: string;
  /** kubectl's name for it (resource.group). */
  resource: string;
  apiVersion: string;
  valid: (name: string) => Record<string, unknown>;
}

const container = { name: "c", image: "nginx:1.27", resources: { requests: { cpu: "100m" } } };
const template = {
  metadata: { labels: { app: "fuzz" } },
  spec: { containers: [container] },
};
const at = "2026-01-01T00:00:00Z";

/** Every served kind that takes writes, with a valid object of it. */
export const KIND_CASES: readonly KindCase[] = [
  {
    kind: "Namespace",
    collection: "/api/v1/namespaces",
    resource: "namespaces",
    apiVersion: "v1",
    valid: (name) => ({ metadata: { name, labels: { team: "a" } } }),
  },
  {
    kind: "Pod",
    collection: `/api/v1/namespaces/${NAMESPACE}/pods`,
    allNamespaces: "/api/v1/pods",
    resource: "pods",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name, labels: { app: "fuzz" } },
      spec: { containers: [container] },
    }),
  },
  {
    kind: "Service",
    collection: `/api/v1/namespaces/${NAMESPACE}/services`,
    allNamespaces: "/api/v1/services",
    resource: "services",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      spec: { selector: { app: "fuzz" }, ports: [{ port: 80, targetPort: 8080 }] },
    }),
  },
  {
    kind: "Event",
    collection: `/api/v1/namespaces/${NAMESPACE}/events`,
    allNamespaces: "/api/v1/events",
    resource: "events",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      involvedObject: { kind: "Pod", name: "p", namespace: NAMESPACE },
      reason: "Fuzzed",
      message: "a message",
      type: "Normal",
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: "fuzz" },
    }),
  },
  {
    kind: "ReplicationController",
    collection: `/api/v1/namespaces/${NAMESPACE}/replicationcontrollers`,
    allNamespaces: "/api/v1/replicationcontrollers",
    resource: "replicationcontrollers",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      spec: { replicas: 1, selector: { app: "fuzz" }, template },
    }),
  },
  ...(["Deployment", "ReplicaSet", "StatefulSet"] as const).map((kind) => ({
    kind,
    collection: `/apis/apps/v1/namespaces/${NAMESPACE}/${kind.toLowerCase()}s`,
    allNamespaces: `/apis/apps/v1/${kind.toLowerCase()}s`,
    resource: `${kind.toLowerCase()}s.apps`,
    apiVersion: "apps/v1",
    valid: (name: string) => ({
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "fuzz" } },
        template,
        ...(kind === "StatefulSet" ? { serviceName: "fuzz" } : {}),
      },
    }),
  })),
  {
    kind: "HorizontalPodAutoscaler",
    collection: `/apis/autoscaling/v2/namespaces/${NAMESPACE}/horizontalpodautoscalers`,
    allNamespaces: "/apis/autoscaling/v2/horizontalpodautoscalers",
    resource: "horizontalpodautoscalers.autoscaling",
    apiVersion: "autoscaling/v2",
    valid: (name) => ({
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
          },
        ],
      },
    }),
  },
  {
    kind: "HorizontalPodAutoscaler",
    collection: `/apis/autoscaling/v1/namespaces/${NAMESPACE}/horizontalpodautoscalers`,
    allNamespaces: "/apis/autoscaling/v1/horizontalpodautoscalers",
    resource: "horizontalpodautoscalers.autoscaling",
    apiVersion: "autoscaling/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 50,
      },
    }),
  },
  {
    kind: "Lease",
    collection: `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases`,
    allNamespaces: "/apis/coordination.k8s.io/v1/leases",
    resource: "leases.coordination.k8s.io",
    apiVersion: "coordination.k8s.io/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        holderIdentity: "fuzz",
        leaseDurationSeconds: 15,
        renewTime: "2026-01-01T00:00:00.000000Z",
      },
    }),
  },
];

export const VERBS = ["create", "update", "merge", "json", "strategic", "apply"] as const;
export type Verb = (typeof VERBS)[number];

// --- hostile values -----------------------------------------------------------------------------

/** JSON nested `depth` deep, spliced in as text (JSON.stringify cannot write it). */
class Deep {
  constructor(readonly depth: number) {}
}

/** A string of `length` characters, made only when the body is written. */
class Big {
  constructor(readonly length: number) {}
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(null, true, false, 0, -1, "", "x", [], {}) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      1e308,
      -1e308,
      2 ** 31,
      -(2 ** 31) - 1,
      2 ** 53 + 1,
      2 ** 63,
      -(2 ** 63),
      4294967296,
      0.5,
      -0.000001,
    ),
  },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "1Gi",
      "100m",
      "-5",
      "1e3",
      "0x10",
      "2026-13-45T99:00:00Z",
      "a/b",
      "..",
      "UPPER",
      "a".repeat(254),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null)), {
      maxLength: 4,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.dictionary(
      fc.string({ maxLength: 6 }),
      fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null)),
      { maxKeys: 3, noNullPrototype: true },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(50, 999, 1001, 5_000, 10_001).map((d) => new Deep(d)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(70_000, 300_000, 1_600_000, 3_200_000).map((n) => new Big(n)),
  },
);

type Path = (string | number)[];

/** Every path of a JSON value (the root included), containers and leaves. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) pathsOf(value[i], [...prefix, i], out);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  }
  return out;
}

type Mutation =
  | { op: "set"; at: number; value: unknown }
  | { op: "delete"; at: number }
  | { op: "unknown"; at: number; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant("set" as const), at: fc.nat(), value: hostileValue }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("unknown" as const),
      at: fc.nat(),
      key: fc.oneof(
        fc.constantFrom("x", "status", "metadata", "apiVersion", "kind", "spec"),
        fc.string({ maxLength: 8 }),
      ),
      value: hostileValue,
    }),
  },
);

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function setAt(root: Record<string, unknown>, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  let cur: unknown = root;
  for (const part of path.slice(0, -1)) cur = (cur as Record<string | number, unknown>)[part];
  (cur as Record<string | number, unknown>)[path[path.length - 1]!] = value;
  return root;
}

function deleteAt(root: Record<string, unknown>, path: Path): unknown {
  if (path.length === 0) return {};
  let cur: unknown = root;
  for (const part of path.slice(0, -1)) cur = (cur as Record<string | number, unknown>)[part];
  const last = path[path.length - 1]!;
  if (Array.isArray(cur)) cur.splice(last as number, 1);
  else delete (cur as Record<string, unknown>)[last as string];
  return root;
}

/** A JSON value's type, as a decoder sees it. */
function jsonClass(value: unknown): string {
  if (value instanceof Deep) return "array";
  if (value instanceof Big) return "string";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Does `next` have the shape of `old` (the same JSON types, element by element)? */
function sameShape(old: unknown, next: unknown): boolean {
  if (next instanceof Deep) return false;
  if (jsonClass(old) !== jsonClass(next)) return false;
  if (Array.isArray(old) && Array.isArray(next)) {
    const model = old[0];
    return model === undefined || next.every((item) => sameShape(model, item));
  }
  if (old !== null && typeof old === "object" && next !== null && typeof next === "object") {
    const before = old as Record<string, unknown>;
    // All-string objects are taken as string maps (labels, selectors): new keys too.
    const values = Object.values(before);
    const stringMap = values.length > 0 && values.every((v) => typeof v === "string");
    return Object.entries(next as Record<string, unknown>).every(([k, v]) =>
      before[k] === undefined ? !stringMap || typeof v === "string" : sameShape(before[k], v),
    );
  }
  return true;
}

function valueAt(root: unknown, path: Path): unknown {
  let cur = root;
  for (const part of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[part];
  }
  return cur;
}

/**
 * The valid object with the mutations applied (paths picked among the current ones), and
 * whether one gave a field a value of another JSON type.
 */
export function mutate(
  valid: Record<string, unknown>,
  mutations: readonly Mutation[],
): { value: unknown; retyped: boolean; removed: boolean; unknown: boolean } {
  let value: unknown = clone(valid);
  let retyped = false;
  let removed = false;
  let unknown = false;
  for (const original of mutations) {
    if (value === null || typeof value !== "object") break;
    // A fresh copy: constants ({}, []) are shared between cases, and later mutations write
    // into what earlier ones inserted.
    const inserted =
      "value" in original && !(original.value instanceof Deep || original.value instanceof Big)
        ? clone(original.value)
        : (original as { value?: unknown }).value;
    const m = { ...original, value: inserted } as Mutation;
    const paths = pathsOf(value);
    const path = paths[m.at % paths.length]!;
    const root = value as Record<string, unknown>;
    if (m.op === "set") {
      if (!sameShape(valueAt(root, path), m.value)) retyped = true;
      // A quantity (resource requests and limits) is a type of its own: a string that does
      // not parse as one is a decode error upstream.
      if (path.includes("requests") || path.includes("limits")) retyped = true;
      value = setAt(root, path, m.value);
    } else if (m.op === "delete") {
      removed = true;
      value = deleteAt(root, path);
    } else {
      const target = valueAt(root, path);
      if (target !== null && typeof target === "object" && !Array.isArray(target)) {
        const fields = target as Record<string, unknown>;
        const old = fields[m.key];
        if (old !== undefined && !sameShape(old, m.value)) retyped = true;
        // A new key: an unknown field of a struct, or an entry of a map (labels, selectors)
        // whose values have a type; all-string objects are taken as string maps.
        if (old === undefined) unknown = true;
        const values = Object.values(fields);
        const stringMap = values.length > 0 && values.every((v) => typeof v === "string");
        if (old === undefined && stringMap && typeof m.value !== "string") retyped = true;
        fields[m.key] = m.value;
      }
    }
  }
  return { value, retyped, removed, unknown };
}

/** JSON text of a value holding Deep and Big placeholders. */
export function encode(value: unknown): string {
  const spliced: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Deep || v instanceof Big) {
      spliced.push(
        v instanceof Deep
          ? "[".repeat(v.depth) + "]".repeat(v.depth)
          : JSON.stringify("b".repeat(v.length)),
      );
      return `\u0000SPLICE${spliced.length - 1}\u0000`;
    }
    return v;
  });
  if (text === undefined) return "null";
  return text.replace(/"\\u0000SPLICE(\d+)\\u0000"/g, (_m, i: string) => spliced[Number(i)]!);
}

function pointer(path: Path): string {
  return path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

type PatchOp = { op: string; at: number; from: number; value: unknown; append: boolean };

const patchOp: fc.Arbitrary<PatchOp> = fc.record({
  op: fc.constantFrom("add", "replace", "remove", "move", "copy", "test", "bogus"),
  at: fc.nat(),
  from: fc.nat(),
  value: hostileValue,
  append: fc.boolean(),
});

/** A JSON patch over paths of the valid object; retyped when a value may change a type. */
function jsonPatch(
  valid: Record<string, unknown>,
  ops: readonly PatchOp[],
): { value: unknown[]; retyped: boolean; removed: boolean } {
  const paths = pathsOf(valid);
  const retyped = ops.some((o) => {
    const path = paths[o.at % paths.length]!;
    if (o.op === "move" || o.op === "copy") return true;
    if (o.op === "remove") return false;
    const old = o.append ? undefined : valueAt(valid, path);
    return old === undefined || !sameShape(old, o.value);
  });
  const removed = ops.some((o) => o.op === "remove" || o.op === "move");
  const value = ops.map((o) => {
    const path = paths[o.at % paths.length]!;
    const text = o.append ? `${pointer(path)}/-` : pointer(path);
    const op: Record<string, unknown> = { op: o.op, path: text };
    if (o.op === "move" || o.op === "copy") op.from = pointer(paths[o.from % paths.length]!);
    if (o.op !== "remove") op.value = o.value;
    return op;
  });
  return { value, retyped, removed };
}

// --- one case -----------------------------------------------------------------------------------

export interface FuzzCase {
  kind: number;
  verb: Verb;
  mutations: Mutation[];
  patch: PatchOp[];
  strict: boolean;
}

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record({
  kind: fc.nat({ max: KIND_CASES.length - 1 }),
  verb: fc.constantFrom(...VERBS),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
  patch: fc.array(patchOp, { minLength: 1, maxLength: 3 }),
  strict: fc.boolean(),
});

export interface FuzzServer {
  url: string;
  kubeconfig: string;
  cluster: EmbeddedCluster;
  /** What the embedded cluster's controllers failed on. */
  controllerErrors: string[];
  close(): Promise<void>;
}

export async function startFuzzServer(): Promise<FuzzServer> {
  const cluster = new EmbeddedCluster({
    model: clusterModelOf(scenario()),
    startTime: Date.UTC(2026, 0, 1, 12),
  });
  const controllerErrors: string[] = [];
  // The embedded cluster's controllers react to each write; what they fail on is logged (as
  // `horizon up` does), and no case may make them fail.
  cluster.store.onListenerError((error, event) => {
    const { kind, metadata } = event.object;
    controllerErrors.push(`${kind} ${metadata.name}: ${(error as Error).stack ?? String(error)}`);
  });
  const server = await serveHttp(createApiHandler({ cluster }), { port: 0 });
  const url = `http://127.0.0.1:${server.port}`;
  const res = await fetch(`${url}/api/v1/namespaces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } }),
  });
  if (res.status !== 201) throw new Error(`cannot create namespace ${NAMESPACE}: ${res.status}`);
  return {
    url,
    kubeconfig: renderKubeconfig({ server: url, insecureSkipTlsVerify: true }),
    cluster,
    controllerErrors,
    close: () => server.close(),
  };
}

interface Answer {
  status: number;
  text: string;
}

async function send(
  server: FuzzServer,
  method: string,
  path: string,
  body?: string,
  contentType = "application/json",
  accept = "application/json",
): Promise<Answer> {
  if (body !== undefined && Buffer.byteLength(body) > MAX_REQUEST_BODY_BYTES) {
    // A connection of its own: the server closes one whose body it refused (413) a moment
    // later, which a keep-alive pool could otherwise pick for the next request.
    return oneShot(server, method, path, body, contentType);
  }
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { "content-type": contentType, accept },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, text: await res.text() };
}

function oneShot(
  server: FuzzServer,
  method: string,
  path: string,
  body: string,
  contentType: string,
): Promise<Answer> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: false,
        headers: { "content-type": contentType, connection: "close" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    // The server answers before it has read the body, and may close while it is being sent.
    req.on("error", (error) => reject(error));
    req.end(body);
  });
}

/** The first watch event of one object, from resourceVersion 0. */
async function watchFirst(server: FuzzServer, path: string): Promise<Json> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const res = await fetch(`${server.url}${path}`, { signal: controller.signal });
    if (res.status !== 200 || !res.body) throw new Error(`watch answered ${res.status}`);
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      const newline = buffer.indexOf("\n");
      if (newline >= 0) return JSON.parse(buffer.slice(0, newline));
    }
    throw new Error("the watch ended without an event");
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

export class InvariantError extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantError(message);
}

let counter = 0;

export interface CaseOptions {
  /** Wrong JSON types get a 400 (the typed decoding has landed): all invariants hold for them. */
  typedDecoding: boolean;
}

/** Does the server answer a wrong JSON type with a 400 (not a 500)? */
export async function hasTypedDecoding(server: FuzzServer): Promise<boolean> {
  const probe = await send(
    server,
    "POST",
    "/api/v1/namespaces",
    JSON.stringify({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "probe", labels: { a: 1 } },
    }),
  );
  // Accepted (no typed decoding yet): it must not be left for kubectl to choke on.
  server.cluster.store.delete("Namespace", "", "probe");
  return probe.status === 400;
}

/** Runs one case against the server; throws InvariantError when an invariant breaks. */
export async function runCase(
  server: FuzzServer,
  c: FuzzCase,
  options: CaseOptions,
): Promise<{ stored: boolean; wrongType?: string; removedField?: string }> {
  const kind = KIND_CASES[c.kind]!;
  const name = `f${(counter++).toString(36)}`;
  const valid = { apiVersion: kind.apiVersion, kind: kind.kind, ...kind.valid(name) };
  const itemPath = `${kind.collection}/${name}`;
  const query = c.strict ? "?fieldValidation=Strict" : "";
  const store = server.cluster.store;
  if (c.verb !== "create" && c.verb !== "apply") {
    const made = await send(server, "POST", kind.collection, JSON.stringify(valid));
    check(made.status === 201, `the valid ${kind.kind} was refused: ${made.status} ${made.text}`);
  }
  let request: { method: string; path: string; body: string; contentType: string };
  let retyped = false;
  let removed = false;
  let unknown = false;
  const mutated = () => {
    const m = mutate(valid, c.mutations);
    retyped = m.retyped;
    removed = m.removed;
    unknown = m.unknown;
    return encode(m.value);
  };
  switch (c.verb) {
    case "create":
      request = {
        method: "POST",
        path: `${kind.collection}${query}`,
        body: mutated(),
        contentType: "application/json",
      };
      break;
    case "update":
      request = {
        method: "PUT",
        path: `${itemPath}${query}`,
        body: mutated(),
        contentType: "application/json",
      };
      break;
    case "merge":
      request = {
        method: "PATCH",
        path: `${itemPath}${query}`,
        body: mutated(),
        contentType: "application/merge-patch+json",
      };
      break;
    case "strategic":
      request = {
        method: "PATCH",
        path: `${itemPath}${query}`,
        body: mutated(),
        contentType: "application/strategic-merge-patch+json",
      };
      break;
    case "json":
      {
        const patch = jsonPatch(valid, c.patch);
        retyped = patch.retyped;
        removed = patch.removed;
        request = {
          method: "PATCH",
          path: `${itemPath}${query}`,
          body: encode(patch.value),
          contentType: "application/json-patch+json",
        };
      }
      break;
    case "apply":
      request = {
        method: "PATCH",
        path: `${itemPath}?fieldManager=fuzz${c.strict ? "&fieldValidation=Strict" : ""}`,
        body: mutated(),
        contentType: "application/apply-patch+yaml",
      };
      break;
  }
  const before = store.resourceVersion();
  const errorsBefore = server.controllerErrors.length;
  const storedBefore = store.get(kind.kind, kind.kind === "Namespace" ? "" : NAMESPACE, name);
  const answer = await send(
    server,
    request.method,
    request.path,
    request.body,
    request.contentType,
  );
  const what = `${c.verb} ${kind.apiVersion} ${kind.kind} ${name}: ${answer.status}`;
  try {
    check(answer.status < 500, `${what} (never a 5xx): ${answer.text.slice(0, 600)}`);
    const failed = server.controllerErrors.slice(errorsBefore);
    // Taken: a case excused below must not fail the next one.
    server.controllerErrors.length = errorsBefore;
    check(
      failed.length === 0,
      `${what}: a controller failed on it: ${failed.join("\n").slice(0, 800)}`,
    );
    if (answer.status >= 300) {
      check(store.resourceVersion() === before, `${what}: a refused write changed the store`);
      const now = store.get(kind.kind, kind.kind === "Namespace" ? "" : NAMESPACE, name);
      check(now === storedBefore, `${what}: a refused write changed the object`);
      return { stored: false };
    }
    await readsWork(server, kind, name, what);
    // Big objects go once checked: a few hundred of them would make every list too big. So
    // do objects with a wrong type, an unknown or a removed field while typed decoding has not
    // landed: kubectl's typed clients cannot read them (the kubectl phase is for the rest).
    const untyped = (retyped || unknown || removed) && !options.typedDecoding;
    if (request.body.length > 64 * 1024 || untyped) {
      store.delete(kind.kind, kind.kind === "Namespace" ? "" : NAMESPACE, name);
    }
    return { stored: true };
  } catch (error) {
    // A value of the wrong JSON type is issue #14's "Wrong JSON types answer 500", which its
    // typed decoding (a schema tree per kind) fixes by refusing it with a 400; until that has
    // landed, what such a value breaks is counted and reported, not failed. A removed
    // required field (Go decodes it as the zero value) is not handled yet either: counted and
    // reported.
    const excused =
      (retyped || unknown) && !options.typedDecoding
        ? "wrongType"
        : removed
          ? "removedField"
          : undefined;
    if (error instanceof InvariantError && excused) {
      // Taken out of the store, so that it breaks no later case's reads.
      store.delete(kind.kind, kind.kind === "Namespace" ? "" : NAMESPACE, name);
      return { stored: false, [excused]: error.message };
    }
    throw error;
  }
}

/** GET, GET as a Table, LIST (namespace and all), WATCH of a stored object. */
async function readsWork(server: FuzzServer, kind: KindCase, name: string, what: string) {
  const itemPath = `${kind.collection}/${name}`;
  const got = await send(server, "GET", itemPath);
  check(
    got.status === 200,
    `${what}: GET of the stored object answered ${got.status}: ${got.text.slice(0, 400)}`,
  );
  JSON.parse(got.text);
  const table = await send(
    server,
    "GET",
    itemPath,
    undefined,
    "application/json",
    TABLE_CONTENT_TYPE,
  );
  check(
    table.status === 200,
    `${what}: GET as a Table answered ${table.status}: ${table.text.slice(0, 400)}`,
  );
  for (const collection of [kind.collection, kind.allNamespaces].filter((p) => p !== undefined)) {
    const list = await send(server, "GET", collection);
    check(
      list.status === 200,
      `${what}: LIST ${collection} answered ${list.status}: ${list.text.slice(0, 400)}`,
    );
    const items = (JSON.parse(list.text) as { items: { metadata: { name: string } }[] }).items;
    check(
      items.some((i) => i.metadata.name === name),
      `${what}: LIST ${collection} lacks it`,
    );
    const tables = await send(
      server,
      "GET",
      collection,
      undefined,
      "application/json",
      TABLE_CONTENT_TYPE,
    );
    check(
      tables.status === 200,
      `${what}: LIST ${collection} as a Table answered ${tables.status}`,
    );
  }
  const event = await watchFirst(
    server,
    `${kind.collection}?watch=1&resourceVersion=0&timeoutSeconds=5&fieldSelector=metadata.name%3D${name}`,
  );
  check(
    event.type === "ADDED" && event.object?.metadata?.name === name,
    `${what}: WATCH gave ${JSON.stringify(event).slice(0, 300)}`,
  );
}

/** The controllers over what was stored: the cluster advanced a few minutes, HPAs synced. */
export async function runControllers(server: FuzzServer): Promise<string[]> {
  const errors: string[] = [];
  let now = server.cluster.now;
  const config = defaultControllerConfig();
  config.syncPeriodMs = 15_000;
  const driver = new RealtimeDriver({
    cluster: server.cluster,
    controllerConfig: config,
    clock: () => now,
    onError: (error) => errors.push((error as Error).stack ?? String(error)),
  });
  try {
    for (let step = 1; step <= 8; step++) {
      now += 30_000;
      await driver.tick();
    }
  } catch (error) {
    errors.push((error as Error).stack ?? String(error));
  } finally {
    await driver.stop();
  }
  return errors;
}

export type { KubeObject };
