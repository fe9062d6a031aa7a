// End-to-end: `kubectl explain` with the REAL kubectl (the PATH dispatcher, kubectl.1.27,
// kubectl.1.33) against `horizon up` in-process. explain reads the OpenAPI v3 documents'
// `components.schemas`, derived from the kinds' schema trees (src/apiserver/openapi.ts).
// Without kubectl the cases skip with the reason, except under CI=true (a failure).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KIND_LIST } from "../../src/kinds/registry.js";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  startTestServer,
  type TestServer,
} from "./helpers.js";

for (const binary of kubectlsUnderTest("kubectl-explain")) describeExplain(binary);

/** The `FIELDS:` lines of explain's output: `name\t<Type>` (with `-required-` where marked). */
function fields(out: string): string[] {
  const at = out.indexOf("FIELDS:");
  assert.notEqual(at, -1, `no FIELDS: in\n${out}`);
  return out
    .slice(at + "FIELDS:".length)
    .split("\n")
    .filter((l) => /^ {2}\S/.test(l))
    .map((l) => l.trim().replace(/\s+/g, " "));
}

function describeExplain(binary: KubectlBinary): void {
  describe(`${binary.name}: kubectl explain against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[]) => kubectl(ctx, args);

    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("explain deployment.spec.template.spec.containers: the Container struct, its merge key's list", async () => {
      const out = kubectlOk(
        await run(["explain", "deployment.spec.template.spec.containers"]),
        "explain containers",
      );
      assert.match(out, /^GROUP:\s+apps$/m);
      assert.match(out, /^KIND:\s+Deployment$/m);
      assert.match(out, /^VERSION:\s+v1$/m);
      assert.match(out, /^FIELD: containers <\[\]Container>$/m);
      const names = fields(out);
      for (const line of [
        "image <string>",
        "name <string> -required-",
        "ports <[]ContainerPort>",
        "resources <ResourceRequirements>",
        "env <[]EnvVar>",
        "readinessProbe <Probe>",
      ]) {
        assert.ok(names.includes(line), `no "${line}" among:\n${names.join("\n")}`);
      }
    });

    it("explain hpa.spec.behavior.scaleUp --recursive: every field of HPAScalingRules, typed", async () => {
      const out = kubectlOk(
        await run(["explain", "hpa.spec.behavior.scaleUp", "--recursive"]),
        "explain scaleUp",
      );
      assert.match(out, /^GROUP:\s+autoscaling$/m);
      assert.match(out, /^VERSION:\s+v2$/m);
      assert.match(out, /^FIELD: scaleUp <HPAScalingRules>$/m);
      const lines = out
        .slice(out.indexOf("FIELDS:") + "FIELDS:".length)
        .split("\n")
        .filter((l) => l.trim() !== "")
        // Depth as kubectl indents it (two spaces a level), then name and type.
        .map((l) => {
          const depth = (l.length - l.trimStart().length) / 2;
          return `${" ".repeat(depth)}${l.trim().replace(/\s+/g, " ")}`;
        });
      for (const line of [
        " policies <[]HPAScalingPolicy>",
        "  periodSeconds <integer> -required-",
        "  type <string> -required-",
        "  value <integer> -required-",
        " selectPolicy <string>",
        " stabilizationWindowSeconds <integer>",
      ]) {
        assert.ok(lines.includes(line), `no "${line}" among:\n${lines.join("\n")}`);
      }
    });

    it("explain hpa.spec.behavior.scaleDown: the field's description and each field's", async () => {
      const out = kubectlOk(
        await run(["explain", "hpa.spec.behavior.scaleDown"]),
        "explain scaleDown",
      );
      const description = out.slice(out.indexOf("DESCRIPTION:"), out.indexOf("FIELDS:"));
      assert.match(
        description,
        /rules for scaling down\. Defaults: a 300-second stabilization window/,
      );
      assert.doesNotMatch(out, /<no description>|<empty>/);
      assert.match(out, /selectPolicy\s+<string>\s+Which policy limits the change/);
    });

    it("explain cm: a ConfigMap's maps and flag", async () => {
      const out = kubectlOk(await run(["explain", "cm"]), "explain cm");
      assert.match(out, /^KIND:\s+ConfigMap$/m);
      assert.match(out, /^VERSION:\s+v1$/m);
      const names = fields(out);
      for (const line of [
        "data <map[string]string>",
        "immutable <boolean>",
        "metadata <ObjectMeta>",
      ]) {
        assert.ok(names.includes(line), `no "${line}" among:\n${names.join("\n")}`);
      }
    });

    it("explain works on every served kind, with the kind's description", async () => {
      for (const d of KIND_LIST) {
        const resource = d.group === "" ? d.resource : `${d.resource}.${d.group}`;
        const out = kubectlOk(await run(["explain", resource]), `explain ${resource}`);
        assert.match(out, new RegExp(`^KIND:\\s+${d.kind}$`, "m"), resource);
        assert.ok(d.description, `${d.kind} has no description`);
        const firstWords = d.description.split(" ").slice(0, 4).join(" ");
        assert.ok(out.includes(firstWords), `${resource}: "${firstWords}" not in\n${out}`);
        const names = fields(out).map((l) => l.split(" ")[0]);
        for (const f of ["apiVersion", "kind", "metadata"]) assert.ok(names.includes(f), resource);
      }
    });

    it("a ServiceMonitor has the operator CRD's fields: a typo is kubectl's strict error, explain lists them", async () => {
      const manifest = (name: string) =>
        `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: ${name}, namespace: default}
spec:
  foo: bar
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http, intervall: 5s}]
`;
      const strict = await kubectl(ctx, ["apply", "-f", "-"], { stdin: manifest("typo") });
      assert.equal(strict.code, 1, strict.stdout);
      assert.match(
        strict.stderr,
        /strict decoding error: unknown field "spec\.endpoints\[0\]\.intervall", unknown field "spec\.foo"/,
      );
      assert.equal((await run(["get", "servicemonitor", "typo"])).code, 1, "nothing stored");
      // --validate=warn: warned, and the unknown fields are dropped as a CRD's pruning drops them.
      const warned = await kubectl(ctx, ["apply", "--validate=warn", "-f", "-"], {
        stdin: manifest("warned"),
      });
      kubectlOk(warned, "apply --validate=warn");
      assert.match(warned.stderr, /unknown field "spec\.foo"/);
      const spec = JSON.parse(
        kubectlOk(await run(["get", "smon", "warned", "-o", "jsonpath={.spec}"]), "get"),
      );
      assert.deepEqual(spec, {
        endpoints: [{ port: "http" }],
        selector: { matchLabels: { app: "web" } },
      });
      const names = fields(
        kubectlOk(await run(["explain", "servicemonitor.spec.endpoints"]), "explain"),
      ).map((l) => l.split(" ")[0]);
      for (const f of [
        "interval",
        "port",
        "targetPort",
        "scrapeTimeout",
        "honorLabels",
        "tlsConfig",
      ]) {
        assert.ok(names.includes(f), `no ${f} among ${names.join(", ")}`);
      }
    });

    it("explain a field that does not exist: kubectl's error", async () => {
      const result = await run(["explain", "hpa.spec.nosuchfield"]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /field "nosuchfield" does not exist/);
    });
  });
}
