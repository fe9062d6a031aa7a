// End to end with the REAL kubectl (1.27, 1.33): a CRD's value validations and names as
// apiextensions-apiserver has them. A custom resource failing a oneOf, repeating a list-map key
// or failing a CEL rule (x-kubernetes-validations) is refused with upstream's message; a second
// CRD whose kind and list kind the first holds is not established (NamesAccepted False,
// ListKindConflict) until the first is deleted. Without kubectl the cases skip with the reason,
// except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { stringify } from "yaml";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  pollUntil,
  startTestServer,
  type TestServer,
} from "./helpers.js";

// Custom kinds are process-wide (one test process serves both kubectl versions' servers): each
// version gets its own group and kinds.
function crd(GROUP: string, plural: string, kind: string, spec: unknown) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, singular: plural.slice(0, -1), kind },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
        },
      ],
    },
  };
}

const ordersCrd = (GROUP: string, kind: string) =>
  crd(GROUP, "orders", kind, {
    type: "object",
    properties: {
      card: { type: "string" },
      invoice: { type: "string" },
      items: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["sku"],
        items: {
          type: "object",
          required: ["sku"],
          properties: { sku: { type: "string" }, count: { type: "integer" } },
        },
      },
    },
    oneOf: [{ required: ["card"] }, { required: ["invoice"] }],
    "x-kubernetes-validations": [
      {
        rule: "!has(self.items) || self.items.all(i, !has(i.count) || i.count <= 10)",
        message: "at most 10 of an item",
      },
    ],
  });

for (const binary of kubectlsUnderTest("kubectl-crd-schema", { versionedOnly: true })) {
  describeCrdSchema(binary);
}

function describeCrdSchema(binary: KubectlBinary): void {
  describe(`${binary.name}: CRD value validations and names`, () => {
    const suffix = binary.name.replace(/\D/g, "");
    const GROUP = `shop${suffix}.example.com`;
    const KIND = `Order${suffix}`;
    const order = (spec: unknown) =>
      stringify({ apiVersion: `${GROUP}/v1`, kind: KIND, metadata: { name: "o1" }, spec });
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });

    before(async () => {
      server = await startTestServer({ controller: false });
      ctx = server.context(binary);
      kubectlOk(await run(["apply", "-f", "-"], stringify(ordersCrd(GROUP, KIND))), "apply CRD");
      kubectlOk(
        await run(["wait", "--for=condition=Established", `crd/orders.${GROUP}`, "--timeout=10s"]),
        "wait Established",
      );
    });
    after(async () => {
      await server?.up.close();
    });

    it("a resource failing oneOf, repeating a list-map key or failing a CEL rule is refused with upstream's message", async () => {
      const neither = await run(["apply", "-f", "-"], order({ items: [{ sku: "a" }] }));
      assert.equal(neither.code, 1);
      assert.match(
        neither.stderr,
        /The Order\d* "o1" is invalid: .*"spec" must validate one and only one schema \(oneOf\)\. Found none valid/s,
      );
      const twice = await run(
        ["apply", "-f", "-"],
        order({ card: "x", items: [{ sku: "a" }, { sku: "a", count: 2 }] }),
      );
      assert.equal(twice.code, 1);
      assert.match(
        twice.stderr,
        /spec\.items\[1\]: Duplicate value: map\[string\]interface \{\}\{"sku":"a"\}/,
      );
      const many = await run(
        ["apply", "-f", "-"],
        order({ card: "x", items: [{ sku: "a", count: 11 }] }),
      );
      assert.equal(many.code, 1);
      assert.match(
        many.stderr,
        /The Order\d* "o1" is invalid: spec: Invalid value: "object": at most 10 of an item/,
      );
      kubectlOk(
        await run(["apply", "-f", "-"], order({ card: "x", items: [{ sku: "a" }, { sku: "b" }] })),
        "a valid order",
      );
    });

    it("a CRD whose kind another holds waits, not established, until that one goes", async () => {
      const clash = crd(GROUP, "purchases", KIND, { type: "object" });
      kubectlOk(await run(["apply", "-f", "-"], stringify(clash)), "apply clashing CRD");
      const names = JSON.parse(
        kubectlOk(
          await run([
            "get",
            `crd/purchases.${GROUP}`,
            "-o",
            'jsonpath={.status.conditions[?(@.type=="NamesAccepted")]}',
          ]),
          "get conditions",
        ),
      );
      assert.deepEqual(
        [names.status, names.reason, names.message],
        // Its default list kind OrderList is taken too, and upstream reports the last clash.
        ["False", "ListKindConflict", `"${KIND}List" is already in use`],
      );
      kubectlOk(await run(["delete", `crd/orders.${GROUP}`]), "delete the first CRD");
      await pollUntil("the second CRD established", async () => {
        const res = await run([
          "get",
          `crd/purchases.${GROUP}`,
          "-o",
          'jsonpath={.status.conditions[?(@.type=="Established")].status}',
        ]);
        return res.stdout.trim() === "True" ? true : undefined;
      });
      kubectlOk(await run(["get", `purchases.${GROUP}`]), "its resources are served");
    });
  });
}
