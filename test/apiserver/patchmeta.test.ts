// The strategic merge patch reads merge keys from the kinds' apply schemas: the same list
// merges by different keys at different paths, as the Go struct tags of k8s.io/api say.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type PatchMeta, strategicMergePatch } from "../../src/api/patch/strategic-merge-patch.js";
import { patchMetaOf, podTemplatePatchMeta } from "../../src/kinds/patchmeta.js";

function containerPorts(ports: unknown[]): unknown {
  return { spec: { containers: [{ name: "app", ports }] } };
}
function servicePorts(ports: unknown[]): unknown {
  return { spec: { ports } };
}

const TEMPLATE = podTemplatePatchMeta("Deployment");
const SERVICE = patchMetaOf("Service");

const CASES: {
  name: string;
  schema: PatchMeta | undefined;
  wrap: (ports: unknown[]) => unknown;
  target: unknown[];
  patch: unknown[];
  want: unknown[];
}[] = [
  {
    name: "container ports merge by containerPort",
    schema: TEMPLATE,
    wrap: containerPorts,
    target: [{ containerPort: 8080 }, { containerPort: 9090, name: "metrics" }],
    patch: [{ containerPort: 8080, name: "http" }],
    want: [
      { containerPort: 8080, name: "http" },
      { containerPort: 9090, name: "metrics" },
    ],
  },
  {
    name: "Service spec.ports merge by port",
    schema: SERVICE,
    wrap: servicePorts,
    target: [
      { port: 80, targetPort: 8080 },
      { port: 443, targetPort: 8443 },
    ],
    patch: [{ port: 80, targetPort: 9090 }],
    want: [
      { port: 80, targetPort: 9090 },
      { port: 443, targetPort: 8443 },
    ],
  },
  {
    name: "Service spec.ports merge by port when the patch items carry only port",
    schema: SERVICE,
    wrap: servicePorts,
    target: [{ port: 80, name: "http" }],
    patch: [{ port: 80 }, { port: 81 }],
    want: [{ port: 80, name: "http" }, { port: 81 }],
  },
  {
    name: "the same items under a container: keyed by containerPort, not port",
    schema: TEMPLATE,
    wrap: containerPorts,
    target: [{ port: 80, containerPort: 8080 }],
    patch: [{ port: 80, containerPort: 9090 }],
    want: [
      { port: 80, containerPort: 8080 },
      { port: 80, containerPort: 9090 },
    ],
  },
  {
    name: "the same items in a Service: keyed by port, not containerPort",
    schema: SERVICE,
    wrap: servicePorts,
    target: [{ port: 80, containerPort: 8080 }],
    patch: [{ port: 80, containerPort: 9090 }],
    want: [{ port: 80, containerPort: 9090 }],
  },
  {
    name: "a path the schema does not know replaces the list",
    schema: undefined,
    wrap: servicePorts,
    target: [{ port: 80, name: "http" }],
    patch: [{ port: 81 }],
    want: [{ port: 81 }],
  },
];

describe("strategic merge patch: merge keys come from the kind's schema", () => {
  for (const c of CASES) {
    test(c.name, () => {
      assert.deepEqual(strategicMergePatch(c.wrap(c.target), c.wrap(c.patch), c.schema), {
        ok: true,
        value: c.wrap(c.want),
      });
    });
  }

  test("lists without patchMergeKey (tolerations) are replaced; finalizers merge as a set", () => {
    const pod = {
      metadata: { finalizers: ["a"] },
      spec: { tolerations: [{ key: "x", operator: "Exists" }] },
    };
    const patch = {
      metadata: { finalizers: ["b"] },
      spec: { tolerations: [{ key: "y", operator: "Exists" }] },
    };
    assert.deepEqual(strategicMergePatch(pod, patch, patchMetaOf("Pod")), {
      ok: true,
      value: {
        metadata: { finalizers: ["a", "b"] },
        spec: { tolerations: [{ key: "y", operator: "Exists" }] },
      },
    });
  });

  test("a pod template's topologySpreadConstraints merge by topologyKey (kubectl apply keeps maxSkew)", () => {
    const spread = (items: unknown[]) => ({ spec: { topologySpreadConstraints: items } });
    const zone = { topologyKey: "zone", maxSkew: 1, whenUnsatisfiable: "DoNotSchedule" };
    const host = { topologyKey: "host", maxSkew: 2, whenUnsatisfiable: "ScheduleAnyway" };
    assert.deepEqual(
      strategicMergePatch(
        spread([zone, host]),
        spread([{ topologyKey: "zone", maxSkew: 3 }]),
        TEMPLATE,
      ),
      { ok: true, value: spread([{ ...zone, maxSkew: 3 }, host]) },
    );
  });

  test("conditions merge by type, ownerReferences by uid", () => {
    const rs = {
      metadata: { ownerReferences: [{ uid: "1", name: "a" }] },
      status: { conditions: [{ type: "A", status: "True" }] },
    };
    const patch = {
      metadata: { ownerReferences: [{ uid: "2", name: "b" }] },
      status: { conditions: [{ type: "B", status: "False" }] },
    };
    assert.deepEqual(strategicMergePatch(rs, patch, patchMetaOf("ReplicaSet")), {
      ok: true,
      value: {
        metadata: {
          ownerReferences: [
            { uid: "1", name: "a" },
            { uid: "2", name: "b" },
          ],
        },
        status: {
          conditions: [
            { type: "A", status: "True" },
            { type: "B", status: "False" },
          ],
        },
      },
    });
  });
});
