// Server-side apply and managedFields: the field-set model (FieldsV1, set algebra, paths), the
// typed walks (ToFieldSet, Compare, Merge), Update/Apply ownership, conflicts as upstream words
// them, and the handler's write paths in-process.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compareStrings } from "../../src/apiserver/fieldmanager/fieldpath.js";
import {
  applyConfig,
  compare,
  conflictStatus,
  decodeFieldsV1,
  difference,
  emptySet,
  encodeFieldsV1,
  encodeManagedFields,
  type FieldPath,
  type FieldSet,
  intersection,
  isEmptySet,
  type Manager,
  managerFromUserAgent,
  memberPaths,
  merge,
  pathString,
  schemaFor,
  setOf,
  setsEqual,
  toFieldSet,
  trackScale,
  trackUpdate,
  union,
  validateFieldManager,
  type WriteContext,
} from "../../src/apiserver/fieldmanager/index.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { scaleManagedFields } from "../../src/apiserver/registry-store.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;

const DEPLOYMENT = schemaFor("Deployment", "apps/v1");
const NOW = "2026-01-01T12:00:00Z";
const LATER = "2026-01-01T12:05:00Z";

function ctx(manager: string, overrides: Partial<WriteContext> = {}): WriteContext {
  return {
    manager,
    apiVersion: "apps/v1",
    subresource: "",
    now: LATER,
    versions: (v) => (v === "apps/v1" ? { schema: DEPLOYMENT, view: (o) => o } : undefined),
    ...overrides,
  };
}

function deployment(spec: Json): Json {
  return { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec };
}

function container(name: string, extra: Json = {}): Json {
  return { name, image: `${name}:1`, ...extra };
}

function withContainers(containers: Json[], extra: Json = {}): Json {
  return deployment({
    ...extra,
    template: { metadata: { labels: { app: "web" } }, spec: { containers } },
  });
}

function manager(name: string, operation: "Apply" | "Update", paths: FieldPath[]): Manager {
  return {
    manager: name,
    operation,
    apiVersion: "apps/v1",
    subresource: "",
    time: NOW,
    set: setOf(paths),
  };
}

const REPLICAS: FieldPath = ["f:spec", "f:replicas"];

// ---------------------------------------------------------------------------------------------

describe("FieldsV1", () => {
  const pe = fc.oneof(
    fc.string({ maxLength: 6 }).map((s) => `f:${s}`),
    fc
      .record({ name: fc.string({ maxLength: 4 }), port: fc.integer({ min: 0, max: 99 }) })
      .map((k) => `k:${JSON.stringify({ name: k.name, port: k.port })}`),
    fc.oneof(fc.string({ maxLength: 4 }), fc.integer()).map((v) => `v:${JSON.stringify(v)}`),
    fc.nat(20).map((i) => `i:${i}`),
  );
  const paths = fc.array(fc.array(pe, { minLength: 1, maxLength: 4 }), { maxLength: 12 });

  it("decode(encode(set)) is the set, and encoding is canonical", () => {
    fc.assert(
      fc.property(paths, (ps) => {
        const set = setOf(ps);
        const encoded = encodeFieldsV1(set);
        const decoded = decodeFieldsV1(JSON.parse(JSON.stringify(encoded)));
        assert.ok(decoded.ok);
        assert.ok(setsEqual(decoded.value, set));
        assert.deepEqual(encodeFieldsV1(decoded.value), encoded);
      }),
    );
  });

  it("union and difference: (a ∪ b) − b has no member of b, and a ⊆ a ∪ b", () => {
    fc.assert(
      fc.property(paths, paths, (pa, pb) => {
        const a = setOf(pa);
        const b = setOf(pb);
        const u = union(a, b);
        assert.ok(isEmptySet(difference(a, u)));
        const rest = difference(u, b);
        for (const p of memberPaths(b))
          assert.ok(!memberPaths(rest).some((q) => q.join() === p.join()));
      }),
    );
  });

  it("union, difference, intersection are member-wise set arithmetic, with no empty branches", () => {
    const key = (p: FieldPath) => JSON.stringify(p);
    const members = (set: FieldSet) => new Set(memberPaths(set).map(key));
    const noEmptyBranch = (set: FieldSet): boolean =>
      [...set.children.values()].every((c) => !isEmptySet(c) && noEmptyBranch(c));
    // Sets with empty branches too: FieldsV1 may hold `{}` inner nodes without `.`.
    const withEmpty = fc.tuple(paths, paths).map(([members, empties]) => {
      const set = setOf(members);
      for (const p of empties) {
        let node = set;
        for (const pe of p) {
          let child = node.children.get(pe);
          if (!child) {
            child = emptySet();
            node.children.set(pe, child);
          }
          node = child;
        }
      }
      return set;
    });
    fc.assert(
      fc.property(withEmpty, withEmpty, (a, b) => {
        const [ma, mb] = [members(a), members(b)];
        const before = [JSON.stringify(encodeFieldsV1(a)), JSON.stringify(encodeFieldsV1(b))];
        const expect = {
          union: new Set([...ma, ...mb]),
          difference: new Set([...ma].filter((m) => !mb.has(m))),
          intersection: new Set([...ma].filter((m) => mb.has(m))),
        };
        for (const [name, got] of [
          ["union", union(a, b)],
          ["difference", difference(a, b)],
          ["intersection", intersection(a, b)],
        ] as const) {
          assert.deepEqual([...members(got)].sort(), [...expect[name]].sort(), name);
          assert.ok(noEmptyBranch(got), `${name} has no empty branch`);
        }
        const after = [JSON.stringify(encodeFieldsV1(a)), JSON.stringify(encodeFieldsV1(b))];
        assert.deepEqual(after, before, "the inputs are unchanged");
      }),
      { seed: 2718, numRuns: 500 },
    );
  });

  it("compareStrings is Go's bytewise UTF-8 order (lone surrogates as U+FFFD)", () => {
    const text = fc.string({ unit: "binary", maxLength: 6 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        const expected = Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
        assert.equal(Math.sign(compareStrings(a, b)), expected, `${escape(a)} vs ${escape(b)}`);
      }),
      { seed: 3141, numRuns: 5000 },
    );
    assert.ok(compareStrings("\uffff", "\u{10000}") < 0, "U+FFFF before U+10000");
  });

  const cases = [
    {
      name: "a leaf is {}, an inner member has `.`",
      paths: [
        ["f:metadata", "f:labels"],
        ["f:metadata", "f:labels", "f:app"],
      ],
      fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } },
    },
    {
      name: "fields sort before keys, keys by their values (numbers numerically)",
      paths: [
        ["f:ports", 'k:{"containerPort":8080,"protocol":"TCP"}'],
        ["f:ports", 'k:{"containerPort":80,"protocol":"TCP"}'],
        ["f:ports", "f:zzz"],
      ],
      fieldsV1: {
        "f:ports": {
          "f:zzz": {},
          'k:{"containerPort":80,"protocol":"TCP"}': {},
          'k:{"containerPort":8080,"protocol":"TCP"}': {},
        },
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const encoded = encodeFieldsV1(setOf(c.paths));
      assert.deepEqual(encoded, c.fieldsV1);
      assert.deepEqual(JSON.stringify(encoded), JSON.stringify(c.fieldsV1));
    });
  }

  const bad = [
    { name: "not an object", raw: [1], error: /expected an object/ },
    { name: "unknown path element prefix", raw: { "x:y": {} }, error: /invalid path element/ },
    { name: "malformed key JSON", raw: { "k:{": {} }, error: /invalid path element/ },
  ];
  for (const c of bad) {
    it(`decode rejects ${c.name}`, () => {
      const decoded = decodeFieldsV1(c.raw);
      assert.equal(decoded.ok, false);
      if (!decoded.ok) assert.match(decoded.error, c.error);
    });
  }
});

describe("field paths as upstream prints them", () => {
  const cases = [
    { name: "fields", path: ["f:spec", "f:replicas"], text: ".spec.replicas" },
    {
      name: "an associative list item and a field in it",
      path: ["f:spec", "f:containers", 'k:{"name":"app"}', "f:image"],
      text: '.spec.containers[name="app"].image',
    },
    {
      name: "a multi-key item",
      path: ["f:ports", 'k:{"containerPort":80,"protocol":"TCP"}'],
      text: '.ports[containerPort=80,protocol="TCP"]',
    },
    { name: "a set item", path: ["f:finalizers", 'v:"a"'], text: '.finalizers[="a"]' },
    { name: "an index", path: ["f:x", "i:3"], text: ".x[3]" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(pathString(c.path), c.text));
});

describe("ToFieldSet, Compare, Merge over the Deployment schema", () => {
  it("ToFieldSet: atomic selector, granular labels, keyed containers, defaulted port key", () => {
    const config = deployment({
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [container("app", { ports: [{ containerPort: 80 }] })] },
      },
    });
    assert.deepEqual(encodeFieldsV1(toFieldSet(config, DEPLOYMENT)), {
      "f:apiVersion": {},
      "f:kind": {},
      "f:metadata": { "f:name": {} },
      "f:spec": {
        "f:replicas": {},
        "f:selector": {},
        "f:template": {
          "f:metadata": { "f:labels": { "f:app": {} } },
          "f:spec": {
            "f:containers": {
              'k:{"name":"app"}': {
                ".": {},
                "f:image": {},
                "f:name": {},
                "f:ports": {
                  'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} },
                },
              },
            },
          },
        },
      },
    });
  });

  const compares = [
    {
      name: "a changed scalar is modified",
      lhs: deployment({ replicas: 1 }),
      rhs: deployment({ replicas: 2 }),
      added: {},
      modified: { "f:spec": { "f:replicas": {} } },
      removed: {},
    },
    {
      name: "a new map gets `.`, a non-pointer struct (template.metadata) does not",
      lhs: deployment({}),
      rhs: deployment({ template: { metadata: { labels: { app: "web" } } } }),
      added: {
        "f:spec": {
          "f:template": { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } },
        },
      },
      modified: {},
      removed: {},
    },
    {
      name: "a removed list item is removed with its fields",
      lhs: withContainers([container("app"), container("side")]),
      rhs: withContainers([container("app")]),
      added: {},
      modified: {},
      removed: {
        "f:spec": {
          "f:template": {
            "f:spec": {
              // Go serializes the empty resources struct, so it goes too.
              "f:containers": {
                'k:{"name":"side"}': { ".": {}, "f:image": {}, "f:name": {}, "f:resources": {} },
              },
            },
          },
        },
      },
    },
  ];
  for (const c of compares) {
    it(`Compare: ${c.name}`, () => {
      const result = compare(c.lhs, c.rhs, DEPLOYMENT);
      assert.deepEqual(encodeFieldsV1(result.added), c.added);
      assert.deepEqual(encodeFieldsV1(result.modified), c.modified);
      assert.deepEqual(encodeFieldsV1(result.removed), c.removed);
    });
  }

  const merges = [
    {
      name: "containers merge by name, live-only items keep their place",
      live: withContainers([container("a"), container("b", { args: ["x"] }), container("c")]),
      config: withContainers([container("c", { image: "c:2" }), container("b")]),
      names: ["a", "c", "b"],
      check: (m: Json) => {
        const byName = Object.fromEntries(
          m.spec.template.spec.containers.map((c: Json) => [c.name, c]),
        );
        assert.equal(byName.c.image, "c:2");
        assert.deepEqual(byName.b.args, ["x"]);
      },
    },
    {
      name: "an atomic list (command) is replaced whole",
      live: withContainers([container("a", { command: ["sh", "-c", "x"] })]),
      config: withContainers([container("a", { command: ["y"] })]),
      names: ["a"],
      check: (m: Json) => assert.deepEqual(m.spec.template.spec.containers[0].command, ["y"]),
    },
  ];
  for (const c of merges) {
    it(`Merge: ${c.name}`, () => {
      const merged = merge(c.live, c.config, DEPLOYMENT) as Json;
      assert.deepEqual(
        merged.spec.template.spec.containers.map((x: Json) => x.name),
        c.names,
      );
      c.check(merged);
    });
  }
});

describe("Update ownership", () => {
  const cases = [
    {
      name: "a create owns every field it set, defaults included",
      live: undefined,
      next: deployment({ replicas: 1, progressDeadlineSeconds: 600 }),
      managed: [] as Manager[],
      expect: [
        "kubectl-create/Update@2026-01-01T12:05:00Z .spec.progressDeadlineSeconds .spec.replicas",
      ],
    },
    {
      name: "changing a field takes it from its owner; the owner keeps the rest",
      live: deployment({ replicas: 1, paused: false }),
      next: deployment({ replicas: 3, paused: false }),
      managed: [manager("kubectl", "Apply", [REPLICAS, ["f:spec", "f:paused"]])],
      expect: [
        "kubectl/Apply@2026-01-01T12:00:00Z .spec.paused",
        "kubectl-edit/Update@2026-01-01T12:05:00Z .spec.replicas",
      ],
    },
    {
      name: "an update that changes nothing records nothing (and keeps the time)",
      live: deployment({ replicas: 1 }),
      next: deployment({ replicas: 1 }),
      managed: [manager("kubectl-edit", "Update", [REPLICAS])],
      expect: ["kubectl-edit/Update@2026-01-01T12:00:00Z .spec.replicas"],
    },
    {
      name: "an existing object nobody tracks stays untracked",
      live: deployment({ replicas: 1 }),
      next: deployment({ replicas: 2 }),
      managed: [] as Manager[],
      expect: [],
    },
  ];
  const show = (ms: Manager[]) =>
    ms.map(
      (m) =>
        `${m.manager}/${m.operation}@${m.time} ${memberPaths(m.set).map(pathString).join(" ")}`,
    );
  for (const c of cases) {
    it(c.name, () => {
      const writer = c.name.startsWith("a create") ? "kubectl-create" : "kubectl-edit";
      assert.deepEqual(show(trackUpdate(c.live, c.next, c.managed, ctx(writer))), c.expect);
    });
  }

  it("a scale write that changes replicas moves .spec.replicas to the scaler", () => {
    const out = trackScale(
      [manager("kubectl", "Apply", [REPLICAS, ["f:spec", "f:paused"]])],
      true,
      {
        manager: "kube-controller-manager",
        apiVersion: "apps/v1",
        now: LATER,
      },
    );
    assert.deepEqual(encodeManagedFields(out), [
      {
        manager: "kubectl",
        operation: "Apply",
        apiVersion: "apps/v1",
        time: NOW,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:paused": {} } },
      },
      {
        manager: "kube-controller-manager",
        operation: "Update",
        apiVersion: "apps/v1",
        time: LATER,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:replicas": {} } },
        subresource: "scale",
      },
    ]);
  });
});

describe("Apply", () => {
  const cases = [
    {
      name: "a field owned by an Update manager with another value conflicts",
      live: deployment({ replicas: 5 }),
      config: deployment({ replicas: 2 }),
      managed: [manager("kubectl-client-side-apply", "Update", [REPLICAS])],
      force: false,
      conflicts: ['conflict with "kubectl-client-side-apply" using apps/v1 .spec.replicas'],
      replicas: undefined,
    },
    {
      name: "the same value is shared ownership, no conflict",
      live: deployment({ replicas: 5 }),
      config: deployment({ replicas: 5 }),
      managed: [manager("kubectl-client-side-apply", "Update", [REPLICAS])],
      force: false,
      conflicts: [],
      replicas: 5,
    },
    {
      name: "force takes the field",
      live: deployment({ replicas: 5 }),
      config: deployment({ replicas: 2 }),
      managed: [manager("other", "Apply", [REPLICAS])],
      force: true,
      conflicts: [],
      replicas: 2,
    },
    {
      name: "a field the applier drops is removed",
      live: deployment({ replicas: 5, paused: true }),
      config: deployment({ paused: true }),
      managed: [manager("kubectl", "Apply", [REPLICAS, ["f:spec", "f:paused"]])],
      force: false,
      conflicts: [],
      replicas: undefined,
    },
    {
      name: "a dropped field another manager also owns stays",
      live: deployment({ replicas: 5, paused: true }),
      config: deployment({ paused: true }),
      managed: [
        manager("kubectl", "Apply", [REPLICAS, ["f:spec", "f:paused"]]),
        manager("hpa", "Update", [REPLICAS]),
      ],
      force: false,
      conflicts: [],
      replicas: 5,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = applyConfig(c.live, c.config, c.managed, {
        ...ctx("kubectl"),
        force: c.force,
      });
      if (c.conflicts.length > 0) {
        assert.ok(!result.ok && "conflicts" in result);
        if (!result.ok && "conflicts" in result) {
          assert.deepEqual(
            conflictStatus(result.conflicts).details.causes.map((x) => `${x.message} ${x.field}`),
            c.conflicts,
          );
        }
        return;
      }
      assert.ok(result.ok);
      if (result.ok) assert.equal((result.object as Json).spec.replicas, c.replicas);
    });
  }

  it("a removed container goes whole; a kept one keeps fields another manager owns", () => {
    const live = withContainers([
      container("app", { resources: { limits: { cpu: "1" } } }),
      container("side"),
    ]);
    const appPath = ["f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"app"}'];
    const applied = toFieldSet(withContainers([container("app"), container("side")]), DEPLOYMENT);
    const managed: Manager[] = [
      { ...manager("kubectl", "Apply", []), set: applied },
      manager("vpa", "Update", [[...appPath, "f:resources", "f:limits", "f:cpu"]]),
    ];
    const result = applyConfig(live, withContainers([container("app")]), managed, {
      ...ctx("kubectl"),
      force: false,
    });
    assert.ok(result.ok);
    if (!result.ok) return;
    const containers = (result.object as Json).spec.template.spec.containers;
    assert.deepEqual(containers, [container("app", { resources: { limits: { cpu: "1" } } })]);
  });
});

describe("conflict Status", () => {
  const scale: Manager = {
    ...manager("kube-controller-manager", "Update", [REPLICAS]),
    subresource: "scale",
  };
  const cases = [
    {
      name: "one conflict with an Update manager of a subresource",
      conflicts: [{ manager: scale, path: REPLICAS }],
      message:
        'Apply failed with 1 conflict: conflict with "kube-controller-manager" with subresource "scale" using apps/v1: .spec.replicas',
    },
    {
      name: "several conflicts are grouped by manager",
      conflicts: [
        { manager: manager("b", "Apply", []), path: REPLICAS },
        { manager: manager("a", "Update", []), path: ["f:spec", "f:paused"] as FieldPath },
        { manager: manager("a", "Update", []), path: REPLICAS },
      ],
      message:
        'Apply failed with 3 conflicts: conflicts with "a" using apps/v1:\n- .spec.paused\n- .spec.replicas\nconflicts with "b":\n- .spec.replicas',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const status = conflictStatus(c.conflicts);
      assert.equal(status.code, 409);
      assert.equal(status.reason, "Conflict");
      assert.equal(status.message, c.message);
      assert.equal(status.details.causes[0]!.reason, "FieldManagerConflict");
    });
  }
});

describe("field manager names", () => {
  const agents = [
    {
      name: "kubectl's user agent",
      agent: "kubectl/v1.33.0 (linux/amd64) kubernetes/abc",
      manager: "kubectl",
    },
    { name: "no slash", agent: "curl", manager: "curl" },
    { name: "non-printable characters dropped", agent: "a\u0007b/1", manager: "ab" },
    { name: "truncated to 128 bytes", agent: `${"x".repeat(200)}/1`, manager: "x".repeat(128) },
  ];
  for (const c of agents) it(c.name, () => assert.equal(managerFromUserAgent(c.agent), c.manager));

  const validations = [
    { name: "a normal name", value: "kubectl", errors: [] as string[] },
    { name: "too long", value: "m".repeat(129), errors: ["may not be more than 128 bytes"] },
    {
      name: "a control character",
      value: "a\u0001",
      errors: ["invalid character U+0001 (at position 1)"],
    },
  ];
  for (const c of validations) {
    it(`validation: ${c.name}`, () =>
      assert.deepEqual(
        validateFieldManager(c.value).map((e) => e.detail),
        c.errors,
      ));
  }
});

// ---------------------------------------------------------------------------------------------
// The handler's write paths

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({
    cluster,
    extensions: { handleDiscovery: () => null, handleMetricsApi: () => null },
  });
  const call = (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers };
    if (body !== undefined) req.body = Buffer.from(JSON.stringify(body));
    return handler(req);
  };
  return { cluster, call };
}

function body(res: ApiResponse): Json {
  assert.ok("body" in res);
  return res.body;
}

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const HPA_V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const HPA_V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const APPLY = { "content-type": "application/apply-patch+yaml" };
const MERGE = { "content-type": "application/merge-patch+json" };

const WEB = withContainers([container("app")], {
  replicas: 2,
  selector: { matchLabels: { app: "web" } },
});

describe("handler: managedFields on writes", () => {
  const errors = [
    {
      name: "apply without fieldManager is 422 on PatchOptions",
      run: (c: ReturnType<typeof setup>["call"]) => c("PATCH", `${DEPLOYMENTS}/web`, WEB, APPLY),
      code: 422,
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    },
    {
      name: "managedFields in an applied configuration is 400",
      run: (c: ReturnType<typeof setup>["call"]) =>
        c(
          "PATCH",
          `${DEPLOYMENTS}/web?fieldManager=x`,
          { ...WEB, metadata: { name: "web", managedFields: [] } },
          APPLY,
        ),
      code: 400,
      message: "metadata.managedFields must be nil",
    },
    {
      name: "a too long fieldManager on create is 422 on CreateOptions",
      run: (c: ReturnType<typeof setup>["call"]) =>
        c("POST", `${DEPLOYMENTS}?fieldManager=${"m".repeat(129)}`, WEB),
      code: 422,
      message:
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    },
    {
      name: "an apply in another version than the URL's is 400",
      run: (c: ReturnType<typeof setup>["call"]) =>
        c(
          "PATCH",
          `${DEPLOYMENTS}/web?fieldManager=x`,
          { ...WEB, apiVersion: "apps/v1beta1" },
          APPLY,
        ),
      code: 400,
      message:
        "Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1",
    },
  ];
  for (const c of errors) {
    it(c.name, async () => {
      const { call } = setup();
      const res = await c.run(call);
      assert.equal(res.status, c.code);
      assert.equal(body(res).message, c.message);
    });
  }

  it("create by User-Agent, then `[]` in a merge patch resets and a set list replaces", async () => {
    const { call } = setup();
    const created = body(
      await call("POST", DEPLOYMENTS, WEB, { "user-agent": "my-tool/1.0 (linux)" }),
    );
    assert.deepEqual(
      created.metadata.managedFields.map((e: Json) => [e.manager, e.operation]),
      [["my-tool", "Update"]],
    );
    const reset = body(
      await call("PATCH", `${DEPLOYMENTS}/web`, { metadata: { managedFields: [] } }, MERGE),
    );
    assert.equal(reset.metadata.managedFields, undefined);
    const set = [
      {
        manager: "someone",
        operation: "Apply",
        apiVersion: "apps/v1",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:replicas": {} } },
      },
    ];
    const replaced = body(
      await call("PATCH", `${DEPLOYMENTS}/web`, { metadata: { managedFields: set } }, MERGE),
    );
    assert.deepEqual(replaced.metadata.managedFields, set);
  });

  it("status writes carry subresource status; HPA entries keep their apiVersion across v1⇄v2", async () => {
    const { call } = setup();
    const hpa = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 50,
      },
    };
    assert.equal((await call("POST", `${HPA_V1}?fieldManager=kubectl-autoscale`, hpa)).status, 201);
    const current = body(await call("GET", `${HPA_V2}/web`));
    const status = { ...current, status: { currentReplicas: 1, desiredReplicas: 2 } };
    const res = await call("PUT", `${HPA_V2}/web/status`, status, {
      "user-agent": "kube-controller-manager/v1.34.0",
    });
    assert.equal(res.status, 200);
    const v2 = body(await call("GET", `${HPA_V2}/web`));
    assert.deepEqual(
      v2.metadata.managedFields.map((e: Json) => [e.manager, e.apiVersion, e.subresource]),
      // Same second: sorted by manager name.
      [
        ["kube-controller-manager", "autoscaling/v2", "status"],
        ["kubectl-autoscale", "autoscaling/v1", undefined],
      ],
    );
    assert.deepEqual(
      v2.metadata.managedFields[1].fieldsV1["f:spec"]["f:targetCPUUtilizationPercentage"],
      {},
    );
    const v1 = body(await call("GET", `${HPA_V1}/web`));
    assert.deepEqual(v1.metadata.managedFields, v2.metadata.managedFields);
  });

  it("a v2 apply changing the target conflicts with the v1 writer, seen in its version", async () => {
    const { call } = setup();
    const v1 = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 50,
      },
    };
    await call("POST", `${HPA_V1}?fieldManager=kubectl-autoscale`, v1);
    const v2 = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 5,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
          },
        ],
      },
    };
    const res = await call("PATCH", `${HPA_V2}/web?fieldManager=kubectl`, v2, APPLY);
    assert.equal(res.status, 409);
    assert.equal(
      body(res).message,
      'Apply failed with 1 conflict: conflict with "kubectl-autoscale" using autoscaling/v1: .spec.targetCPUUtilizationPercentage',
    );
  });

  it("a repeated identical apply does not write", async () => {
    const { call } = setup();
    await call("PATCH", `${DEPLOYMENTS}/web?fieldManager=kubectl`, WEB, APPLY);
    const before = body(await call("GET", `${DEPLOYMENTS}/web`));
    const again = body(await call("PATCH", `${DEPLOYMENTS}/web?fieldManager=kubectl`, WEB, APPLY));
    assert.equal(again.metadata.resourceVersion, before.metadata.resourceVersion);
    const changed = { ...WEB, spec: { ...WEB.spec, replicas: 3 } };
    const written = body(
      await call("PATCH", `${DEPLOYMENTS}/web?fieldManager=kubectl`, changed, APPLY),
    );
    assert.notEqual(written.metadata.resourceVersion, before.metadata.resourceVersion);
  });
});

describe("handler: spec.replicas written through scale", () => {
  const owners = (object: Json) =>
    (object.metadata.managedFields ?? []).map((e: Json) =>
      [e.manager, e.operation, e.subresource ?? ""].join("/"),
    );

  it("a /scale request's field manager owns spec.replicas after it", async () => {
    const { call } = setup();
    await call("PATCH", `${DEPLOYMENTS}/web?fieldManager=kubectl`, WEB, APPLY);
    const scale = { kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 5 } };
    const res = await call("PUT", `${DEPLOYMENTS}/web/scale?fieldManager=hpa-ctl`, scale);
    assert.equal(res.status, 200);
    const after = body(await call("GET", `${DEPLOYMENTS}/web`));
    assert.equal(after.spec.replicas, 5);
    assert.deepEqual(owners(after), ["kubectl/Apply/", "hpa-ctl/Update/scale"]);
  });

  it("in-process writes own it as the cluster's scaleManagedFields option says, else keep it", async () => {
    for (const c of [
      { option: true, want: ["kubectl/Apply/", "kube-controller-manager/Update/scale"] },
      { option: false, want: ["kubectl/Apply/"] },
    ]) {
      const cluster = new EmbeddedCluster({
        model: clusterModelOf(scenario()),
        startTime: T0,
        ...(c.option ? { scaleManagedFields: scaleManagedFields("kube-controller-manager") } : {}),
      });
      const handler = createApiHandler({ cluster });
      const url = new URL(`${DEPLOYMENTS}/web`, "http://x");
      url.searchParams.set("fieldManager", "kubectl");
      await handler({
        method: "PATCH",
        path: url.pathname,
        query: url.searchParams,
        headers: APPLY,
        body: Buffer.from(JSON.stringify(WEB)),
      });
      const updated = cluster.scaleWorkload("default", "Deployment", "web", 4);
      assert.ok(updated);
      assert.deepEqual(owners(updated as Json), c.want, `option: ${c.option}`);
    }
  });
});
