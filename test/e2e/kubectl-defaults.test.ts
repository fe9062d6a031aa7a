// End-to-end: the API server defaults what it stores as kube-apiserver does, so the habits of
// a CI pipeline work with the REAL kubectl (1.27 and 1.33): an app's manifest set (Deployment
// with probes and resources, Service, HPA, ConfigMap) applied twice prints `unchanged`, and `kubectl diff`
// right after `kubectl apply` prints nothing and exits 0. Without kubectl the tests skip with
// the reason, except under CI=true.
import assert from "node:assert/strict";
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
} from "./helpers.js";

type Json = ReturnType<typeof JSON.parse>;

/** A realistic app: what `kubectl apply -f app/` sends, as YAML documents. */
const APP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
data:
  LOG_LEVEL: info
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels: {app: shop}
spec:
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
      - name: web
        image: registry.k8s.io/hpa-example
        ports:
        - containerPort: 80
          name: http
        envFrom:
        - configMapRef: {name: shop-config}
        env:
        - name: POD_IP
          valueFrom:
            fieldRef: {fieldPath: status.podIP}
        resources:
          requests: {cpu: 200m, memory: 64Mi}
          limits: {cpu: 500m}
        readinessProbe:
          httpGet: {path: /, port: http}
        livenessProbe:
          tcpSocket: {port: 80}
          initialDelaySeconds: 5
      - name: sidecar
        image: busybox:1.36
        command: [sh, -c, "sleep 3600"]
---
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  selector: {app: shop}
  ports:
  - name: http
    port: 80
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: shop
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: shop}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 60}
`;

for (const binary of kubectlsUnderTest("kubectl-defaults", { versionedOnly: true }))
  describeDefaults(binary);

function describeDefaults(binary: KubectlBinary): void {
  describe(`${binary.name}: defaulting against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });
    const get = async (kind: string, name: string): Promise<Json> =>
      JSON.parse(kubectlOk(await run(["get", kind, name, "-o", "json"]), `get ${kind}`));

    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("apply creates the app; the stored objects carry upstream's defaults", async () => {
      const out = kubectlOk(await run(["apply", "-f", "-"], APP), "apply");
      assert.deepEqual(out.trim().split("\n"), [
        "configmap/shop-config created",
        "deployment.apps/shop created",
        "service/shop created",
        "horizontalpodautoscaler.autoscaling/shop created",
      ]);
      const deployment = await get("deployment", "shop");
      assert.equal(deployment.spec.replicas, 1);
      assert.equal(deployment.spec.revisionHistoryLimit, 10);
      assert.equal(deployment.spec.progressDeadlineSeconds, 600);
      assert.deepEqual(deployment.spec.strategy, {
        type: "RollingUpdate",
        rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" },
      });
      const pod = deployment.spec.template.spec;
      assert.equal(pod.restartPolicy, "Always");
      assert.equal(pod.dnsPolicy, "ClusterFirst");
      assert.equal(pod.schedulerName, "default-scheduler");
      assert.equal(pod.terminationGracePeriodSeconds, 30);
      assert.deepEqual(pod.securityContext, {});
      const [web, sidecar] = pod.containers;
      assert.equal(web.imagePullPolicy, "Always", "no tag: latest");
      assert.equal(sidecar.imagePullPolicy, "IfNotPresent", "a tag other than latest");
      assert.equal(web.terminationMessagePath, "/dev/termination-log");
      assert.equal(web.terminationMessagePolicy, "File");
      assert.deepEqual(web.ports, [{ containerPort: 80, name: "http", protocol: "TCP" }]);
      assert.equal(web.env[0].valueFrom.fieldRef.apiVersion, "v1");
      assert.deepEqual(web.readinessProbe, {
        httpGet: { path: "/", port: "http", scheme: "HTTP" },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      });
      // A template's limits do not become requests; a Pod's do.
      assert.deepEqual(web.resources.requests, { cpu: "200m", memory: "64Mi" });

      const service = await get("service", "shop");
      assert.equal(service.spec.type, "ClusterIP");
      assert.equal(service.spec.sessionAffinity, "None");
      assert.equal(service.spec.internalTrafficPolicy, "Cluster");
      assert.deepEqual(service.spec.ipFamilies, ["IPv4"]);
      assert.equal(service.spec.ipFamilyPolicy, "SingleStack");
      assert.deepEqual(service.spec.ports, [
        { name: "http", port: 80, protocol: "TCP", targetPort: 80 },
      ]);
      assert.match(service.spec.clusterIP, /^127\.65\.\d+\.\d+$/, "from the service range");
      assert.deepEqual(service.spec.clusterIPs, [service.spec.clusterIP]);
    });

    it("the Deployment's pods get a Pod's defaults: requests from limits, enableServiceLinks", async () => {
      const pod = await pollUntil(
        "a pod of shop",
        async () => {
          const list = JSON.parse(
            kubectlOk(await run(["get", "pods", "-l", "app=shop", "-o", "json"]), "get pods"),
          );
          return list.items[0];
        },
        { timeoutMs: 20_000 },
      );
      assert.equal(pod.spec.enableServiceLinks, true);
      assert.deepEqual(pod.spec.containers[0].resources.requests, {
        cpu: "200m",
        memory: "64Mi",
      });
      assert.deepEqual(pod.spec.containers[0].resources.limits, { cpu: "500m" });
    });

    it("apply again prints unchanged for every object", async () => {
      const out = kubectlOk(await run(["apply", "-f", "-"], APP), "apply again");
      assert.deepEqual(out.trim().split("\n"), [
        "configmap/shop-config unchanged",
        "deployment.apps/shop unchanged",
        "service/shop unchanged",
        "horizontalpodautoscaler.autoscaling/shop unchanged",
      ]);
    });

    it("diff right after apply prints nothing and exits 0", async () => {
      // The rollout settles first: status written between diff's read and its dry run
      // would show as a difference on any server.
      await pollUntil(
        "shop available",
        async () => {
          const d = await get("deployment", "shop");
          return d.status?.availableReplicas === d.spec.replicas ? true : undefined;
        },
        { timeoutMs: 30_000 },
      );
      const result = await run(["diff", "-f", "-"], APP);
      assert.equal(
        result.code,
        0,
        `diff exited ${result.code}:\n${result.stdout}\n${result.stderr}`,
      );
      assert.equal(result.stdout, "");
    });

    it("diff shows a real change and exits 1", async () => {
      const changed = APP.replace("maxReplicas: 5", "maxReplicas: 7");
      const result = await run(["diff", "-f", "-"], changed);
      assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /-\s+maxReplicas: 5\n\+\s+maxReplicas: 7/);
    });
  });
}
