// A scenario's updateTemplate patches the workload's spec.template as `kubectl patch` does:
// kube-apiserver's strategic merge patch, with its merge keys and directives. Cases where a
// "lists of named objects merge by name" rule differs from it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { strategicMergePatch } from "../../src/api/patch/strategic-merge-patch.js";
import { defaultPodSpec } from "../../src/api/pod-defaults.js";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { podTemplatePatchMeta } from "../../src/kinds/patchmeta.js";
import { applyScenarioEvent, clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, scenario, T0, WEB } from "./builders.js";

/** web with an app container (two ports) and a sidecar. */
function webWithSidecar(): KubeObject {
  const web = deployment({ replicas: 1 });
  const template = (web.spec as { template: { spec: { containers: unknown[] } } }).template;
  template.spec.containers = [
    {
      name: "app",
      image: "nginx:1.27",
      ports: [{ containerPort: 8080 }, { containerPort: 9090, name: "metrics" }],
      env: [{ name: "MODE", value: "slow" }],
    },
    { name: "side", image: "envoy:1" },
  ];
  return web;
}

const CASES = [
  {
    name: "$patch: delete removes a container (not a container with a $patch field)",
    patch: { spec: { containers: [{ name: "side", $patch: "delete" }] } },
    containers: [
      {
        name: "app",
        image: "nginx:1.27",
        ports: [{ containerPort: 8080 }, { containerPort: 9090, name: "metrics" }],
        env: [{ name: "MODE", value: "slow" }],
      },
    ],
  },
  {
    name: "ports merge by containerPort (not replaced whole)",
    patch: {
      spec: { containers: [{ name: "app", ports: [{ containerPort: 8080, name: "http" }] }] },
    },
    containers: [
      {
        name: "app",
        image: "nginx:1.27",
        ports: [
          { containerPort: 8080, name: "http" },
          { containerPort: 9090, name: "metrics" },
        ],
        env: [{ name: "MODE", value: "slow" }],
      },
      { name: "side", image: "envoy:1" },
    ],
  },
  {
    name: "env merges by name; $patch: replace on the list replaces it",
    patch: {
      spec: {
        containers: [
          {
            name: "app",
            env: [
              { name: "MODE", value: "fast" },
              { name: "DEBUG", value: "1" },
            ],
          },
          { name: "side", env: [{ $patch: "replace" }, { name: "X", value: "y" }] },
        ],
      },
    },
    containers: [
      {
        name: "app",
        image: "nginx:1.27",
        ports: [{ containerPort: 8080 }, { containerPort: 9090, name: "metrics" }],
        env: [
          { name: "MODE", value: "fast" },
          { name: "DEBUG", value: "1" },
        ],
      },
      { name: "side", image: "envoy:1", env: [{ name: "X", value: "y" }] },
    ],
  },
];

describe("updateTemplate is kubectl's strategic merge patch", () => {
  for (const c of CASES) {
    test(c.name, () => {
      const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
      cluster.create(webWithSidecar());
      cluster.advanceTo(at(5));
      const before = cluster.store.get("Deployment", "default", "web")!;
      const template = (before.spec as { template: unknown }).template;
      applyScenarioEvent(
        { atMs: 5000, type: "updateTemplate", workload: WEB, patch: c.patch },
        { cluster, controller: null, now: cluster.now },
      );
      const after = cluster.store.get("Deployment", "default", "web")!;
      const patched = (after.spec as { template: { spec: { containers: unknown[] } } }).template;
      // What kube-apiserver makes of the same patch of spec.template (`kubectl patch`).
      assert.deepEqual(strategicMergePatch(template, c.patch, podTemplatePatchMeta("Deployment")), {
        ok: true,
        value: patched,
      });
      // The patched template is defaulted again, as the API server defaults every write.
      assert.deepEqual(
        patched.spec.containers,
        defaultPodSpec({ containers: c.containers }).containers,
      );
    });
  }
});
