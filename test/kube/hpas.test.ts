// statusWritersOf: who wrote an HPA's status last, from its managedFields (issue 40: the
// detector tells Horizon's own writes, any replica's, by their field manager).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusWritersOf } from "../../src/kube/hpas.js";
import type { RawObject } from "../../src/kube/informer.js";

describe("statusWritersOf (src/kube/hpas.ts)", () => {
  const entry = (manager: string, time: string, subresource?: string) => ({
    manager,
    operation: "Update",
    time,
    ...(subresource ? { subresource } : {}),
  });
  const cases: { name: string; managedFields: unknown; expected: string[] | undefined }[] = [
    { name: "no managedFields", managedFields: undefined, expected: undefined },
    {
      name: "no status entry",
      managedFields: [entry("kubectl", "2026-01-01T00:00:00Z")],
      expected: undefined,
    },
    {
      name: "the newest status entry",
      managedFields: [
        entry("kube-controller-manager", "2026-01-01T00:00:05Z", "status"),
        entry("horizon-controller", "2026-01-01T00:00:09Z", "status"),
        entry("kubectl", "2026-01-01T00:00:10Z"),
      ],
      expected: ["horizon-controller"],
    },
    {
      name: "all of the newest second",
      managedFields: [
        entry("kube-controller-manager", "2026-01-01T00:00:09Z", "status"),
        entry("horizon-controller", "2026-01-01T00:00:09Z", "status"),
      ],
      expected: ["kube-controller-manager", "horizon-controller"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(
        statusWritersOf({
          metadata: { name: "a", managedFields: c.managedFields } as RawObject["metadata"],
        }),
        c.expected,
      );
    });
  }
});
