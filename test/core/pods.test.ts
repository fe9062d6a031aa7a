import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { podViewFromObject } from "../../src/core/pods.js";

describe("podViewFromObject", () => {
  it("keeps what the algorithm needs, requests in milli-units", () => {
    const view = podViewFromObject({
      metadata: {
        name: "web-1",
        labels: { app: "web" },
        deletionTimestamp: "2026-01-01T00:00:00Z",
      },
      spec: {
        containers: [{ name: "app", resources: { requests: { cpu: "250m", memory: "1Gi" } } }],
        initContainers: [
          { name: "setup", resources: { requests: { cpu: "1" } } },
          { name: "proxy", restartPolicy: "Always", resources: { requests: { cpu: "0.1" } } },
        ],
      },
      status: {
        phase: "Running",
        startTime: "2026-01-01T10:00:00Z",
        conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T10:00:30Z" }],
      },
    });
    assert.deepEqual(view, {
      name: "web-1",
      labels: { app: "web" },
      phase: "Running",
      deleting: true,
      startTime: Date.parse("2026-01-01T10:00:00Z"),
      ready: { status: "True", lastTransitionTime: Date.parse("2026-01-01T10:00:30Z") },
      containers: [{ name: "app", requests: { cpu: 250, memory: 1073741824000 } }],
      restartableInitContainers: [{ name: "proxy", requests: { cpu: 100 } }],
      podRequests: null,
    });
  });

  it("reads an unset transition time as Go's zero time and a missing phase as Pending", () => {
    const view = podViewFromObject({
      metadata: { name: "p" },
      status: { conditions: [{ type: "Ready", status: "False" }] },
    });
    assert.equal(view.phase, "Pending");
    assert.equal(view.startTime, null);
    assert.equal(view.ready?.lastTransitionTime, Date.parse("0001-01-01T00:00:00Z"));
  });
});
