// End to end with the REAL kubectl (PATH, 1.27, 1.33): the configuration kinds an application
// ships beside its Deployment — ConfigMap, Secret, ServiceAccount and RBAC — applied, created
// with kubectl's generators, listed with upstream's columns, described, and refused as upstream
// refuses them (bad keys, bad base64, immutable data, a changed Secret type or roleRef).
// Without kubectl the cases skip with the reason, except under CI=true (a failure).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  pollUntil,
  startTestServer,
  type TestServer,
  tableRows,
} from "./helpers.js";

const MANIFESTS = `
apiVersion: v1
kind: ConfigMap
metadata: {name: app-config}
data:
  app.properties: "level=info"
  mode: fast
binaryData:
  blob: AAEC
---
apiVersion: v1
kind: Secret
metadata: {name: app-secret}
stringData:
  user: admin
data:
  password: c2VjcmV0
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: app}
automountServiceAccountToken: false
`;

for (const binary of kubectlsUnderTest("kubectl-config")) describeConfig(binary);

function describeConfig(binary: KubectlBinary): void {
  describe(`${binary.name}: ConfigMap, Secret, ServiceAccount and RBAC`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });

    before(async () => {
      server = await startTestServer({ controller: false });
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    // As upstream: a Secret's stringData never comes back, so apply always finds it to patch.
    it("apply creates them; applied again, unchanged (the Secret with stringData: configured)", async () => {
      const first = kubectlOk(await run(["apply", "-f", "-"], MANIFESTS), "apply");
      assert.match(first, /configmap\/app-config created/);
      assert.match(first, /secret\/app-secret created/);
      assert.match(first, /serviceaccount\/app created/);
      const again = kubectlOk(await run(["apply", "-f", "-"], MANIFESTS), "apply again");
      assert.match(again, /configmap\/app-config unchanged/);
      assert.match(again, /secret\/app-secret configured/);
      assert.match(again, /serviceaccount\/app unchanged/);
    });

    it("get lists them with upstream's columns", async () => {
      const cm = tableRows(kubectlOk(await run(["get", "configmap", "app-config"]), "get cm"));
      assert.deepEqual(cm[0], ["NAME", "DATA", "AGE"]);
      assert.deepEqual(cm[1]?.slice(0, 2), ["app-config", "3"]);
      const secret = tableRows(kubectlOk(await run(["get", "secret", "app-secret"]), "get secret"));
      assert.deepEqual(secret[0], ["NAME", "TYPE", "DATA", "AGE"]);
      assert.deepEqual(secret[1]?.slice(0, 3), ["app-secret", "Opaque", "2"]);
      const sa = tableRows(kubectlOk(await run(["get", "sa", "app"]), "get sa"));
      assert.deepEqual(sa[0], ["NAME", "SECRETS", "AGE"]);
      assert.deepEqual(sa[1]?.slice(0, 2), ["app", "0"]);
    });

    it("a Secret's stringData is stored base64 in data, never as stringData", async () => {
      const json = JSON.parse(
        kubectlOk(await run(["get", "secret", "app-secret", "-o", "json"]), "get secret -o json"),
      ) as { data: Record<string, string>; stringData?: unknown; type: string };
      assert.equal(Buffer.from(json.data.user ?? "", "base64").toString(), "admin");
      assert.equal(Buffer.from(json.data.password ?? "", "base64").toString(), "secret");
      assert.equal(json.stringData, undefined);
      assert.equal(json.type, "Opaque");
    });

    it("kubectl create configmap / secret generic and describe", async () => {
      kubectlOk(
        await run(["create", "configmap", "made", "--from-literal=a=1", "--from-literal=b=2"]),
        "create configmap",
      );
      kubectlOk(
        await run(["create", "secret", "generic", "made", "--from-literal=token=t0p"]),
        "create secret",
      );
      const described = kubectlOk(await run(["describe", "configmap", "made"]), "describe cm");
      assert.match(described, /Name:\s+made/);
      assert.match(described, /^a:\n----\n1$/m);
      const secret = kubectlOk(await run(["describe", "secret", "made"]), "describe secret");
      assert.match(secret, /Type:\s+Opaque/);
      assert.match(secret, /token:\s+3 bytes/);
    });

    it("bad input: a bad key is 422, bad base64 a 400, nothing stored", async () => {
      const badKey = await run(
        ["apply", "-f", "-"],
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {'a b': x}\n",
      );
      assert.notEqual(badKey.code, 0);
      assert.match(
        badKey.stderr,
        /ConfigMap "bad" is invalid: data\[a b\]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '\.'/,
      );
      const badBase64 = await run(
        ["apply", "-f", "-"],
        "apiVersion: v1\nkind: Secret\nmetadata: {name: bad}\ndata: {k: 'not base64!'}\n",
      );
      assert.notEqual(badBase64.code, 0);
      assert.match(badBase64.stderr, /illegal base64 data at input byte 3/);
      assert.equal(server.up.cluster.store.get("ConfigMap", "default", "bad"), undefined);
      assert.equal(server.up.cluster.store.get("Secret", "default", "bad"), undefined);
    });

    it("immutable data cannot change, nor can a Secret's type", async () => {
      kubectlOk(
        await run(
          ["apply", "-f", "-"],
          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen}\nimmutable: true\ndata: {a: '1'}\n",
        ),
        "apply immutable",
      );
      const changed = await run(["patch", "configmap", "frozen", "-p", '{"data":{"a":"2"}}']);
      assert.notEqual(changed.code, 0);
      assert.match(
        changed.stderr,
        /ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set/,
      );
      const retyped = await run([
        "patch",
        "secret",
        "app-secret",
        "-p",
        '{"type":"kubernetes.io/tls"}',
      ]);
      assert.notEqual(retyped.code, 0);
      assert.match(retyped.stderr, /type: Invalid value: "kubernetes.io\/tls": field is immutable/);
    });

    it("RBAC: deploy/rbac.yaml applies; roles and bindings list with upstream's columns", async () => {
      const rbac = readFileSync("deploy/rbac.yaml", "utf8");
      const applied = kubectlOk(await run(["apply", "-f", "-"], rbac), "apply rbac");
      assert.match(
        applied,
        /clusterrole\.rbac\.authorization\.k8s\.io\/horizon-controller created/,
      );
      assert.match(
        applied,
        /rolebinding\.rbac\.authorization\.k8s\.io\/horizon-controller-leader-election created/,
      );
      const roles = tableRows(
        kubectlOk(await run(["get", "clusterrole", "horizon-controller"]), "get clusterrole"),
      );
      assert.deepEqual(roles[0], ["NAME", "CREATED AT"]);
      assert.match(roles[1]?.[1] ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const bindings = tableRows(
        kubectlOk(await run(["get", "rolebinding", "-o", "wide"]), "get rolebinding"),
      );
      assert.deepEqual(bindings[0], ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]);
      assert.equal(bindings[1]?.[1], "Role/horizon-controller-leader-election");
      assert.equal(bindings[1]?.at(-1), "horizon-system/horizon-controller");
    });

    it("RBAC: kubectl create clusterrole with a colon in its name; bad rules and roleRef refused", async () => {
      kubectlOk(
        await run(["create", "clusterrole", "team:reader", "--verb=get,list", "--resource=pods"]),
        "create clusterrole",
      );
      const json = JSON.parse(
        kubectlOk(
          await run(["get", "clusterrole", "team:reader", "-o", "json"]),
          "get clusterrole -o json",
        ),
      ) as { rules: { verbs: string[]; resources: string[]; apiGroups: string[] }[] };
      assert.deepEqual(json.rules, [
        { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
      ]);
      const noVerbs = await run(
        ["apply", "-f", "-"],
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: empty}\nrules:\n- {apiGroups: [''], resources: [pods]}\n",
      );
      assert.notEqual(noVerbs.code, 0);
      assert.match(
        noVerbs.stderr,
        /The Role "empty" is invalid: rules\[0\]\.verbs: Required value: verbs must contain at least one value/,
      );
      const rebound = await run([
        "patch",
        "rolebinding",
        "horizon-controller-leader-election",
        "--type=merge",
        "-p",
        '{"roleRef":{"name":"other"}}',
      ]);
      assert.notEqual(rebound.code, 0);
      assert.match(rebound.stderr, /roleRef: Invalid value: .*: cannot change roleRef/);
    });

    it("PodDisruptionBudget: apply, kubectl create pdb, upstream's columns; both limits refused", async () => {
      kubectlOk(
        await run(
          ["apply", "-f", "-"],
          "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 50%\n  selector: {matchLabels: {app: web}}\n",
        ),
        "apply pdb",
      );
      kubectlOk(
        await run(["create", "pdb", "api", "--selector=app=api", "--max-unavailable=1"]),
        "create pdb",
      );
      const rows = tableRows(kubectlOk(await run(["get", "pdb"]), "get pdb"));
      assert.deepEqual(rows[0], [
        "NAME",
        "MIN AVAILABLE",
        "MAX UNAVAILABLE",
        "ALLOWED DISRUPTIONS",
        "AGE",
      ]);
      assert.deepEqual(
        rows.slice(1).map((r) => r.slice(0, 4)),
        [
          ["api", "N/A", "1", "0"],
          ["web", "50%", "N/A", "0"],
        ],
      );
      const both = await run(
        ["apply", "-f", "-"],
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: both}\nspec:\n  minAvailable: 1\n  maxUnavailable: 1\n",
      );
      assert.notEqual(both.code, 0);
      assert.match(both.stderr, /minAvailable and maxUnavailable cannot be both set/);
    });

    it("LimitRange, ResourceQuota, PriorityClass: apply, kubectl create quota / priorityclass, columns, usage, bad input refused", async () => {
      const ns = ["-n", "quota-e2e"];
      kubectlOk(await run(["create", "namespace", "quota-e2e"]), "create namespace");
      kubectlOk(
        await run(
          ["apply", ...ns, "-f", "-"],
          "apiVersion: v1\nkind: LimitRange\nmetadata: {name: limits}\nspec:\n  limits:\n  - {type: Container, max: {cpu: '2'}, defaultRequest: {cpu: 100m}}\n",
        ),
        "apply limitrange",
      );
      kubectlOk(
        await run(["create", "quota", "small", ...ns, "--hard=pods=5,requests.cpu=1,limits.cpu=4"]),
        "create quota",
      );
      kubectlOk(
        await run(["create", "priorityclass", "batch", "--value=1000", "--description=batch jobs"]),
        "create priorityclass",
      );
      const limits = tableRows(kubectlOk(await run(["get", "limits", ...ns]), "get limits"));
      assert.deepEqual(limits[0], ["NAME", "CREATED AT"]);
      assert.equal(limits[1]?.[0], "limits");
      assert.match(limits[1]?.[1] ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const defaulted = JSON.parse(
        kubectlOk(
          await run(["get", "limits", "limits", ...ns, "-o", "json"]),
          "get limits -o json",
        ),
      );
      assert.deepEqual(
        defaulted.spec.limits[0].default,
        { cpu: "2" },
        "the default limit comes from max",
      );
      kubectlOk(
        await run(
          ["apply", ...ns, "-f", "-"],
          "apiVersion: v1\nkind: Pod\nmetadata: {name: one}\nspec:\n  containers:\n  - {name: app, image: 'nginx:1.27', resources: {requests: {cpu: 200m}}}\n",
        ),
        "apply pod",
      );
      const quota = await pollUntil("the quota's usage", async () => {
        const rows = tableRows(kubectlOk(await run(["get", "quota", ...ns]), "get quota"));
        return rows[1]?.[2]?.includes("pods: 1/5") ? rows : undefined;
      });
      assert.deepEqual(quota[0], ["NAME", "AGE", "REQUEST", "LIMIT"]);
      assert.equal(quota[1]?.[0], "small");
      assert.equal(quota[1]?.[2], "pods: 1/5, requests.cpu: 200m/1");
      // LimitRanger gave the pod the LimitRange's default limit (its max), which the quota counts.
      assert.equal(quota[1]?.[3], "limits.cpu: 2/4");
      const admitted = JSON.parse(
        kubectlOk(await run(["get", "pod", "one", ...ns, "-o", "json"]), "get pod"),
      );
      assert.deepEqual(admitted.spec.containers[0].resources, {
        limits: { cpu: "2" },
        requests: { cpu: "200m" },
      });
      // ResourceQuota admission: past the quota's requests.cpu, a pod is refused.
      const over = await run(
        ["apply", ...ns, "-f", "-"],
        "apiVersion: v1\nkind: Pod\nmetadata: {name: two}\nspec:\n  containers:\n  - {name: app, image: 'nginx:1.27', resources: {requests: {cpu: 900m}}}\n",
      );
      assert.notEqual(over.code, 0);
      assert.match(
        over.stderr,
        /pods "two" is forbidden: exceeded quota: small, requested: requests.cpu=900m, used: requests.cpu=200m, limited: requests.cpu=1/,
      );
      const classes = tableRows(kubectlOk(await run(["get", "pc"]), "get pc"));
      assert.deepEqual(classes[0], ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]);
      assert.deepEqual(
        classes.slice(1).map((r) => [r[0], r[1], r[2], r[4]]),
        [
          ["batch", "1000", "false", "PreemptLowerPriority"],
          ["system-cluster-critical", "2000000000", "false", "PreemptLowerPriority"],
          ["system-node-critical", "2000001000", "false", "PreemptLowerPriority"],
        ],
      );
      const reserved = await run(["create", "priorityclass", "system-mine", "--value=1"]);
      assert.notEqual(reserved.code, 0);
      assert.match(reserved.stderr, /priority class names with 'system-' prefix are reserved/);
      const badQuota = await run(["create", "quota", "bad", ...ns, "--hard=cpus=1"]);
      assert.notEqual(badQuota.code, 0);
      assert.match(
        badQuota.stderr,
        /spec.hard\[cpus\]: Invalid value: "cpus": must be a standard resource for quota/,
      );
      const after = tableRows(kubectlOk(await run(["get", "quota", ...ns]), "get quota again"));
      assert.deepEqual(
        after.slice(1).map((r) => r[0]),
        ["small"],
        "nothing stored",
      );
    });

    it("Ingress, IngressClass, NetworkPolicy: apply, kubectl create ingress, columns, bad paths refused", async () => {
      const manifests = [
        "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}",
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: web}\nspec:\n  podSelector: {matchLabels: {app: web}}\n  ingress:\n  - ports: [{port: 8080}]\n  policyTypes: [Ingress]",
      ].join("\n---\n");
      kubectlOk(await run(["apply", "-f", "-"], manifests), "apply networking");
      kubectlOk(
        await run(["create", "ingress", "web", "--class=nginx", "--rule=app.example.com/*=web:80"]),
        "create ingress",
      );
      const ing = tableRows(kubectlOk(await run(["get", "ingress", "web"]), "get ingress"));
      assert.deepEqual(ing[0], ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]);
      assert.deepEqual(ing[1]?.slice(0, 3), ["web", "nginx", "app.example.com"]);
      const spec = (
        JSON.parse(
          kubectlOk(await run(["get", "ingress", "web", "-o", "json"]), "get ingress -o json"),
        ) as {
          spec: { rules: { http: { paths: { path: string; pathType: string }[] } }[] };
        }
      ).spec;
      assert.deepEqual(spec.rules[0]?.http.paths[0], {
        path: "/",
        pathType: "Prefix",
        backend: { service: { name: "web", port: { number: 80 } } },
      });
      const cls = tableRows(kubectlOk(await run(["get", "ingressclass"]), "get ingressclass"));
      assert.deepEqual(cls[0], ["NAME", "CONTROLLER", "PARAMETERS", "AGE"]);
      assert.deepEqual(cls[1]?.slice(0, 3), ["nginx", "k8s.io/ingress-nginx", "<none>"]);
      const np = tableRows(kubectlOk(await run(["get", "netpol"]), "get netpol"));
      assert.deepEqual(np[0], ["NAME", "POD-SELECTOR", "AGE"]);
      assert.deepEqual(np[1]?.slice(0, 2), ["web", "app=web"]);
      const relative = await run(
        ["apply", "-f", "-"],
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: bad}\nspec:\n  rules:\n  - http:\n      paths:\n      - {path: api, pathType: Prefix, backend: {service: {name: web}}}\n",
      );
      assert.notEqual(relative.code, 0);
      assert.match(
        relative.stderr,
        /spec\.rules\[0\]\.http\.paths\[0\]\.path: Invalid value: "api": must be an absolute path/,
      );
      assert.match(
        relative.stderr,
        /spec\.rules\[0\]\.http\.paths\[0\]\.backend: Required value: port name or number is required/,
      );
    });
  });
}
