// Protobuf request bodies: the wire-format reader, the `k8s\0` envelope, the message schemas
// (bodies captured from real kubectl 1.32/1.33, and hand-encoded ones for fields kubectl never
// sends), and the API server answering them (201, or a 400 Status for a body that does not decode).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createApiHandler } from "../../src/apiserver/handler.js";
import {
  decodeEnvelope,
  decodeProtobufObject,
  PROTOBUF_CONTENT_TYPE,
  ProtobufError,
  ProtoReader,
  readFields,
} from "../../src/apiserver/protobuf.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

// Raw bodies logged by a proxy in front of `horizon up` (kubectl-protocol.md §7.5).
const CAPTURED = {
  /** kubectl.1.33 create namespace team-a */
  namespace:
    "6b3873000a0f0a02763112094e616d657370616365121e0a160a067465616d2d6112001a0022002a0032003800420012001a020a001a002200",
  /** kubectl.1.33 create deployment web --image=nginx --replicas=2 --port=80 -n team-a */
  deployment:
    "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412be010a250a0377656212001a067465616d2d6122002a003200380042005a0a0a0361707012037765621286010802120c0a0a0a0361707012037765621a6c0a1c0a0012001a0022002a003200380042005a0a0a036170701203776562124c122e0a056e67696e7812056e67696e782a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200",
  /** kubectl.1.33 autoscale deployment web -n team-a --cpu-percent=80 --min=2 --max=5 */
  hpaV2:
    "6b3873000a290a0e6175746f7363616c696e672f76321217486f72697a6f6e74616c506f644175746f7363616c657212610a130a0377656212001a0022002a0032003800420012440a1a0a0a4465706c6f796d656e7412037765621a07617070732f76311002180522220a085265736f7572636522160a03637075120f0a0b5574696c697a6174696f6e20501a04180020001a002200",
  /** kubectl.1.33 create service clusterip my-svc --tcp=80:8080 */
  service:
    "6b3873000a0d0a02763112075365727669636512720a250a066d792d73766312001a0022002a003200380042005a0d0a0361707012066d792d73766312450a1b0a0738302d38303830120354435018502207080010903f1a002800120d0a0361707012066d792d7376631a002209436c757374657249503a00420052005a00600068001a020a001a002200",
  /** kubectl.1.32 autoscale deployment web -n team-a --cpu-percent=70 --min=1 --max=3 --name=web32 */
  hpaV1:
    "6b3873000a290a0e6175746f7363616c696e672f76311217486f72697a6f6e74616c506f644175746f7363616c657212410a150a05776562333212001a0022002a0032003800420012220a1a0a0a4465706c6f796d656e7412037765621a07617070732f76311001180320461a04180020001a002200",
};
const hex = (s: string) => Buffer.from(s, "hex");

// A minimal encoder, only to build test bodies (the server never encodes protobuf).
type Enc = Buffer;
function varint(n: bigint | number): Enc {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? byte | 0x80 : byte);
  } while (v > 0n);
  return Buffer.from(out);
}
const key = (field: number, wire: number) => varint((field << 3) | wire);
const vi = (field: number, n: number | bigint | boolean) =>
  Buffer.concat([key(field, 0), varint(typeof n === "boolean" ? (n ? 1 : 0) : n)]);
const ld = (field: number, ...parts: (Enc | string)[]) => {
  const body = Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
  return Buffer.concat([key(field, 2), varint(body.length), body]);
};
const q = (field: number, value: string) => ld(field, ld(1, value));
const mapEntry = (field: number, k: string, v: Enc | string) =>
  ld(field, ld(1, k), typeof v === "string" ? ld(2, v) : ld(2, v));
function envelope(apiVersion: string, kind: string, raw: Enc, contentEncoding = ""): Enc {
  return Buffer.concat([
    Buffer.from("k8s\0", "binary"),
    ld(1, ld(1, apiVersion), ld(2, kind)),
    ld(2, raw),
    ld(3, contentEncoding),
    ld(4, ""),
  ]);
}

describe("wire-format reader", () => {
  const cases = [
    { name: "one-byte varint", bytes: "08 01", want: [{ field: 1, wire: 0, value: 1n }] },
    {
      name: "multi-byte varint 300",
      bytes: "10 ac 02",
      want: [{ field: 2, wire: 0, value: 300n }],
    },
    {
      name: "int32 -1 is a ten-byte varint",
      bytes: "08 ff ff ff ff ff ff ff ff ff 01",
      want: [{ field: 1, wire: 0, value: 0xffffffffffffffffn }],
    },
    {
      name: "fixed32 and fixed64 are little-endian",
      bytes: "0d 01 02 03 04 11 01 00 00 00 00 00 00 80",
      want: [
        { field: 1, wire: 5, value: 0x04030201n },
        { field: 2, wire: 1, value: 0x8000000000000001n },
      ],
    },
    {
      name: "length-delimited",
      bytes: "1a 03 61 62 63",
      want: [{ field: 3, wire: 2, value: Uint8Array.from([0x61, 0x62, 0x63]) }],
    },
    {
      name: "two-byte key (field 20)",
      bytes: "a0 01 07",
      want: [{ field: 20, wire: 0, value: 7n }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = readFields(hex(c.bytes.replaceAll(" ", "")));
      assert.deepEqual(
        got.map((f) => ({
          ...f,
          value: f.value instanceof Uint8Array ? Uint8Array.from(f.value) : f.value,
        })),
        c.want,
      );
    });
  }

  const broken = [
    { name: "truncated varint", bytes: "08 80", error: /truncated varint/ },
    {
      name: "varint longer than 10 bytes",
      bytes: "08 ff ff ff ff ff ff ff ff ff ff 01",
      error: /longer than 10/,
    },
    { name: "length past the end", bytes: "0a 05 61", error: /truncated length-delimited/ },
    { name: "truncated fixed64", bytes: "09 01 02", error: /truncated fixed64/ },
    { name: "group wire type 3", bytes: "0b", error: /unsupported wire type 3/ },
    { name: "field number 0", bytes: "00 01", error: /invalid field number 0/ },
  ];
  for (const c of broken) {
    it(`throws ProtobufError: ${c.name}`, () => {
      assert.throws(
        () => readFields(hex(c.bytes.replaceAll(" ", ""))),
        (err: unknown) => {
          assert.ok(err instanceof ProtobufError);
          assert.match(err.message, c.error);
          return true;
        },
      );
    });
  }

  it("varints round-trip through the reader (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => {
        assert.equal(new ProtoReader(varint(n)).varint(), n);
      }),
    );
  });
});

describe("the k8s\\0 envelope", () => {
  it("splits typeMeta, raw and the encodings of a captured body", () => {
    const env = decodeEnvelope(hex(CAPTURED.namespace));
    assert.equal(env.apiVersion, "v1");
    assert.equal(env.kind, "Namespace");
    assert.equal(env.contentEncoding, "");
    assert.equal(env.contentType, "");
    assert.equal(env.raw.length, 0x1e);
  });
  it("rejects a body without the magic prefix", () => {
    assert.throws(
      () => decodeEnvelope(Buffer.from('{"kind":"x"}')),
      /expected prefix \[107 56 115 0\]/,
    );
  });
});

describe("bodies captured from real kubectl", () => {
  const cases = [
    {
      name: "1.33 create namespace",
      body: CAPTURED.namespace,
      want: {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "team-a" },
        spec: {},
        status: {},
      },
    },
    {
      name: "1.33 create deployment",
      body: CAPTURED.deployment,
      want: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "team-a", labels: { app: "web" } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: {
              containers: [
                { name: "nginx", image: "nginx", ports: [{ containerPort: 80 }], resources: {} },
              ],
            },
          },
          strategy: {},
        },
      },
    },
    {
      name: "1.33 create service clusterip (a named port, an int targetPort, the selector)",
      body: CAPTURED.service,
      want: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "my-svc", labels: { app: "my-svc" } },
        spec: {
          ports: [{ name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 }],
          selector: { app: "my-svc" },
          type: "ClusterIP",
        },
        status: { loadBalancer: {} },
      },
    },
    {
      name: "1.33 autoscale: autoscaling/v2 with a CPU Utilization metric",
      body: CAPTURED.hpaV2,
      want: {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web" },
        spec: {
          scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
          minReplicas: 2,
          maxReplicas: 5,
          metrics: [
            {
              type: "Resource",
              resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
            },
          ],
        },
        status: { desiredReplicas: 0 },
      },
    },
    {
      name: "1.32 autoscale: autoscaling/v1 with targetCPUUtilizationPercentage",
      body: CAPTURED.hpaV1,
      want: {
        apiVersion: "autoscaling/v1",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web32" },
        spec: {
          scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
          minReplicas: 1,
          maxReplicas: 3,
          targetCPUUtilizationPercentage: 70,
        },
        status: { currentReplicas: 0, desiredReplicas: 0 },
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = decodeProtobufObject(hex(c.body), c.want.kind);
      assert.deepEqual(got, { ok: true, value: c.want });
    });
  }
});

// Hand-encoded messages for the fields kubectl does not send.
const SELECTOR = ld(
  2,
  mapEntry(1, "queue", "jobs"),
  ld(2, ld(1, "tier"), ld(2, "In"), ld(3, "a"), ld(3, "b")),
);
const REF = (kind: string, name: string) => Buffer.concat([ld(1, kind), ld(2, name), ld(3, "v1")]);
const RULES = (select: string, window: number, tolerance: string) =>
  Buffer.concat([
    ld(1, select),
    ld(2, ld(1, "Percent"), vi(2, 100), vi(3, 15)),
    ld(2, ld(1, "Pods"), vi(2, 4), vi(3, 60)),
    vi(3, window),
    q(4, tolerance),
  ]);
const HPA_V2_FULL = Buffer.concat([
  ld(
    1,
    ld(1, "full"),
    ld(3, "default"),
    mapEntry(11, "app", "web"),
    mapEntry(12, "note", "x"),
    ld(8, vi(1, 0)),
  ),
  ld(
    2,
    ld(1, ld(1, "Deployment"), ld(2, "web"), ld(3, "apps/v1")),
    vi(2, 1),
    vi(3, 10),
    ld(4, ld(1, "Resource"), ld(4, ld(1, "memory"), ld(2, ld(1, "AverageValue"), q(3, "500Mi")))),
    ld(4, ld(1, "Pods"), ld(3, ld(1, ld(1, "rps")), ld(2, ld(1, "AverageValue"), q(3, "1k")))),
    ld(
      4,
      ld(1, "Object"),
      ld(2, ld(1, REF("Service", "svc")), ld(2, ld(1, "Value"), q(2, "10")), ld(3, ld(1, "hits"))),
    ),
    ld(
      4,
      ld(1, "External"),
      ld(5, ld(1, ld(1, "queue_len"), SELECTOR), ld(2, ld(1, "Value"), q(2, "30"))),
    ),
    ld(
      4,
      ld(1, "ContainerResource"),
      ld(7, ld(1, "cpu"), ld(2, ld(1, "Utilization"), vi(4, 60)), ld(3, "app")),
    ),
    ld(5, ld(1, RULES("Max", 0, "0.05")), ld(2, RULES("Min", 300, "0.1"))),
  ),
  ld(
    3,
    vi(1, 3),
    ld(2, vi(1, 1_767_268_800), vi(2, 5)),
    vi(3, 2),
    vi(4, 4),
    ld(5, ld(1, "Resource"), ld(4, ld(1, "cpu"), ld(2, q(1, "250m"), vi(3, 90)))),
    ld(
      5,
      ld(1, "Object"),
      ld(2, ld(1, ld(1, "hits")), ld(2, q(1, "12")), ld(3, REF("Service", "svc"))),
    ),
    ld(
      6,
      ld(1, "AbleToScale"),
      ld(2, "True"),
      ld(3, vi(1, 1_767_268_800)),
      ld(4, "SucceededRescale"),
      ld(5, "ok"),
    ),
  ),
]);

const DEPLOYMENT_FULL = Buffer.concat([
  ld(1, ld(1, "api"), mapEntry(12, "deployment.kubernetes.io/revision", "1")),
  ld(
    2,
    vi(1, 0),
    ld(2, mapEntry(1, "app", "api")),
    ld(
      3,
      ld(1, mapEntry(11, "app", "api")),
      ld(
        2,
        ld(
          2,
          ld(1, "app"),
          ld(2, "registry.k8s.io/hpa-example"),
          ld(3, "/bin/server"),
          ld(4, "--port=8080"),
          ld(6, ld(1, "http"), vi(3, 8080), ld(4, "TCP")),
          ld(7, ld(1, "MODE"), ld(2, "fast")),
          ld(
            8,
            // map<string, Quantity>: entries {1 key, 2 value Quantity {1 string}}.
            mapEntry(1, "cpu", ld(1, "1")),
            mapEntry(1, "memory", ld(1, "1Gi")),
            mapEntry(2, "cpu", ld(1, "200m")),
          ),
          ld(
            11,
            ld(1, ld(2, ld(1, "/healthz"), ld(2, vi(1, 0), vi(2, 8080)), ld(4, "HTTP"))),
            vi(2, 5),
            vi(4, 10),
            vi(6, 3),
          ),
          ld(10, ld(1, ld(3, ld(1, vi(1, 1), ld(3, "http")))), vi(2, 1)),
          ld(14, "IfNotPresent"),
        ),
        ld(3, "Always"),
        vi(4, 30),
      ),
    ),
    ld(4, ld(1, "RollingUpdate"), ld(2, ld(1, vi(1, 1), ld(3, "25%")), ld(2, vi(1, 0), vi(2, 1)))),
    vi(6, 10),
    vi(9, 600),
  ),
  ld(3, vi(1, 99)),
  // An unknown field of every wire type: skipped.
  vi(100, 1),
  Buffer.concat([key(101, 1), Buffer.alloc(8)]),
  Buffer.concat([key(102, 5), Buffer.alloc(4)]),
  ld(103, "ignored"),
]);

describe("hand-encoded messages", () => {
  const cases = [
    {
      name: "autoscaling/v2: every metric source, behavior with policies and tolerance, status",
      body: envelope("autoscaling/v2", "HorizontalPodAutoscaler", HPA_V2_FULL),
      want: {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: {
          name: "full",
          namespace: "default",
          labels: { app: "web" },
          annotations: { note: "x" },
        },
        spec: {
          scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
          minReplicas: 1,
          maxReplicas: 10,
          metrics: [
            {
              type: "Resource",
              resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } },
            },
            {
              type: "Pods",
              pods: {
                metric: { name: "rps" },
                target: { type: "AverageValue", averageValue: "1k" },
              },
            },
            {
              type: "Object",
              object: {
                describedObject: { kind: "Service", name: "svc", apiVersion: "v1" },
                target: { type: "Value", value: "10" },
                metric: { name: "hits" },
              },
            },
            {
              type: "External",
              external: {
                metric: {
                  name: "queue_len",
                  selector: {
                    matchLabels: { queue: "jobs" },
                    matchExpressions: [{ key: "tier", operator: "In", values: ["a", "b"] }],
                  },
                },
                target: { type: "Value", value: "30" },
              },
            },
            {
              type: "ContainerResource",
              containerResource: {
                name: "cpu",
                target: { type: "Utilization", averageUtilization: 60 },
                container: "app",
              },
            },
          ],
          behavior: {
            scaleUp: {
              selectPolicy: "Max",
              policies: [
                { type: "Percent", value: 100, periodSeconds: 15 },
                { type: "Pods", value: 4, periodSeconds: 60 },
              ],
              stabilizationWindowSeconds: 0,
              tolerance: "0.05",
            },
            scaleDown: {
              selectPolicy: "Min",
              policies: [
                { type: "Percent", value: 100, periodSeconds: 15 },
                { type: "Pods", value: 4, periodSeconds: 60 },
              ],
              stabilizationWindowSeconds: 300,
              tolerance: "0.1",
            },
          },
        },
        status: {
          observedGeneration: 3,
          lastScaleTime: "2026-01-01T12:00:00Z",
          currentReplicas: 2,
          desiredReplicas: 4,
          currentMetrics: [
            {
              type: "Resource",
              resource: { name: "cpu", current: { value: "250m", averageUtilization: 90 } },
            },
            {
              type: "Object",
              object: {
                metric: { name: "hits" },
                current: { value: "12" },
                describedObject: { kind: "Service", name: "svc", apiVersion: "v1" },
              },
            },
          ],
          conditions: [
            {
              type: "AbleToScale",
              status: "True",
              lastTransitionTime: "2026-01-01T12:00:00Z",
              reason: "SucceededRescale",
              message: "ok",
            },
          ],
        },
      },
    },
    {
      name: "apps/v1 Deployment: resources, ports, env, probes, strategy; unknown fields skipped",
      body: envelope("apps/v1", "Deployment", DEPLOYMENT_FULL),
      want: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "api", annotations: { "deployment.kubernetes.io/revision": "1" } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "api" } },
          template: {
            metadata: { labels: { app: "api" } },
            spec: {
              containers: [
                {
                  name: "app",
                  image: "registry.k8s.io/hpa-example",
                  command: ["/bin/server"],
                  args: ["--port=8080"],
                  ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
                  env: [{ name: "MODE", value: "fast" }],
                  resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "200m" } },
                  readinessProbe: {
                    httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" },
                    initialDelaySeconds: 5,
                    periodSeconds: 10,
                    failureThreshold: 3,
                  },
                  livenessProbe: { tcpSocket: { port: "http" }, initialDelaySeconds: 1 },
                  imagePullPolicy: "IfNotPresent",
                },
              ],
              restartPolicy: "Always",
              terminationGracePeriodSeconds: 30,
            },
          },
          strategy: {
            type: "RollingUpdate",
            rollingUpdate: { maxUnavailable: "25%", maxSurge: 1 },
          },
          revisionHistoryLimit: 10,
          progressDeadlineSeconds: 600,
        },
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(decodeProtobufObject(c.body, c.want.kind), { ok: true, value: c.want });
    });
  }
});

it('a map key "__proto__" is a member, not the prototype', () => {
  const raw = Buffer.concat([
    ld(1, ld(1, "cm"), mapEntry(11, "__proto__", "x")),
    mapEntry(2, "__proto__", "v"),
    mapEntry(2, "k", "1"),
  ]);
  const got = decodeProtobufObject(envelope("v1", "ConfigMap", raw), "ConfigMap");
  assert.ok(got.ok);
  const { data, metadata } = got.value as { data: object; metadata: { labels: object } };
  for (const map of [data, metadata.labels]) {
    assert.equal(Object.getPrototypeOf(map), Object.prototype);
    assert.ok(Object.hasOwn(map, "__proto__"), JSON.stringify(map));
  }
  assert.equal(JSON.stringify(data), '{"__proto__":"v","k":"1"}');
});

describe("bodies that do not decode are errors as data", () => {
  const cases = [
    {
      name: "JSON sent as protobuf",
      body: Buffer.from('{"apiVersion":"v1"}'),
      kind: "Namespace",
      error:
        'the object provided is unrecognized (must be of type Namespace): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"apiVersion":"v1"})',
    },
    {
      name: "the magic alone (no type)",
      body: Buffer.from("k8s\0", "binary"),
      kind: "HorizontalPodAutoscaler",
      error:
        'the object provided is unrecognized (must be of type HorizontalPodAutoscaler): no kind "" is registered for version "" (6b387300)',
    },
    {
      name: "a kind without a schema",
      body: envelope("v1", "Pod", Buffer.alloc(0)),
      kind: "Pod",
      error:
        'Pod in version "v1" cannot be handled as a Pod: no kind "Pod" is registered for version "v1"',
    },
    {
      name: "gzip content encoding",
      body: envelope("v1", "Namespace", Buffer.alloc(0), "gzip"),
      kind: "Namespace",
      error:
        'Namespace in version "v1" cannot be handled as a Namespace: unsupported content encoding "gzip"',
    },
    {
      name: "a string field sent as a varint",
      body: envelope("v1", "Namespace", ld(1, vi(1, 5))),
      kind: "Namespace",
      error:
        'Namespace in version "v1" cannot be handled as a Namespace: field name (1) has wire type 0, want 2',
    },
    {
      name: "a truncated captured body",
      body: hex(CAPTURED.hpaV2).subarray(0, 60),
      kind: "HorizontalPodAutoscaler",
      error: /truncated length-delimited field/,
    },
    {
      name: "invalid UTF-8 in a string",
      body: envelope("v1", "Namespace", ld(1, ld(1, Buffer.from([0xff, 0xfe])))),
      kind: "Namespace",
      error: /not valid UTF-8/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = decodeProtobufObject(c.body, c.kind);
      assert.equal(got.ok, false);
      if (got.ok) return;
      if (typeof c.error === "string") assert.equal(got.error, c.error);
      else assert.match(got.error, c.error);
    });
  }

  it("never throws, whatever the bytes (property)", () => {
    const prefixed = fc
      .uint8Array({ maxLength: 200 })
      .map((b) => Buffer.concat([Buffer.from("k8s\0", "binary"), b]));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 200 }), prefixed), (bytes) => {
        const got = decodeProtobufObject(bytes, "HorizontalPodAutoscaler");
        assert.equal(typeof got.ok, "boolean");
      }),
    );
  });

  it("every prefix and every one-byte corruption of a captured body decodes or fails as data (property)", () => {
    const body = hex(CAPTURED.deployment);
    fc.assert(
      fc.property(
        fc.nat(body.length),
        fc.nat(body.length - 1),
        fc.integer({ min: 0, max: 255 }),
        (cut, at, byte) => {
          const corrupt = Buffer.from(body);
          corrupt[at] = byte;
          for (const b of [body.subarray(0, cut), corrupt]) {
            const got = decodeProtobufObject(b, "Deployment");
            assert.equal(typeof got.ok, "boolean");
          }
        },
      ),
    );
  });

  it("autoscaling/v1 fields round-trip from an encoded body (property)", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
    fc.assert(
      fc.property(
        name,
        name,
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: 1000 }),
        (hpaName, target, min, cpu) => {
          const body = envelope(
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            Buffer.concat([
              ld(1, ld(1, hpaName)),
              ld(2, ld(1, ld(1, "Deployment"), ld(2, target)), vi(2, min), vi(3, 7), vi(4, cpu)),
            ]),
          );
          const got = decodeProtobufObject(body, "HorizontalPodAutoscaler");
          assert.deepEqual(got, {
            ok: true,
            value: {
              apiVersion: "autoscaling/v1",
              kind: "HorizontalPodAutoscaler",
              metadata: { name: hpaName },
              spec: {
                scaleTargetRef: { kind: "Deployment", name: target },
                minReplicas: min,
                maxReplicas: 7,
                targetCPUUtilizationPercentage: cpu,
              },
            },
          });
        },
      ),
    );
  });
});

describe("the API server decodes protobuf request bodies", () => {
  function setup() {
    const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
    const handler = createApiHandler({
      cluster,
      extensions: { handleDiscovery: () => null, handleMetricsApi: () => null },
    });
    const post = (
      path: string,
      body: Buffer,
      contentType = PROTOBUF_CONTENT_TYPE,
    ): Promise<ApiResponse> => {
      const req: ApiRequest = {
        method: "POST",
        path,
        query: new URLSearchParams("fieldManager=kubectl-create&fieldValidation=Strict"),
        headers: { "content-type": contentType },
        body,
      };
      return handler(req);
    };
    return { cluster, post };
  }
  const bodyOf = (res: ApiResponse) => {
    assert.ok("body" in res);
    return res.body as Record<string, never>;
  };

  it("kubectl's create namespace, create deployment, create service and autoscale (v2, then v1) are created", async () => {
    const { cluster, post } = setup();
    const ns = await post("/api/v1/namespaces", hex(CAPTURED.namespace));
    assert.equal(ns.status, 201, JSON.stringify(bodyOf(ns)));
    assert.ok(cluster.store.get("Namespace", "", "team-a"));
    const dep = await post("/apis/apps/v1/namespaces/team-a/deployments", hex(CAPTURED.deployment));
    assert.equal(dep.status, 201, JSON.stringify(bodyOf(dep)));
    const hpa = await post(
      "/apis/autoscaling/v2/namespaces/team-a/horizontalpodautoscalers",
      hex(CAPTURED.hpaV2),
    );
    assert.equal(hpa.status, 201, JSON.stringify(bodyOf(hpa)));
    assert.deepEqual((bodyOf(hpa) as unknown as { spec: { metrics: unknown } }).spec.metrics, [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
      },
    ]);
    const svc = await post("/api/v1/namespaces/team-a/services", hex(CAPTURED.service));
    assert.equal(svc.status, 201, JSON.stringify(bodyOf(svc)));
    const service = cluster.store.get("Service", "team-a", "my-svc") as unknown as {
      spec: Record<string, unknown>;
    };
    assert.deepEqual(service.spec.ports, [
      { name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 },
    ]);
    assert.equal(service.spec.type, "ClusterIP");
    const v1 = await post(
      "/apis/autoscaling/v1/namespaces/team-a/horizontalpodautoscalers",
      hex(CAPTURED.hpaV1),
    );
    assert.equal(v1.status, 201, JSON.stringify(bodyOf(v1)));
    const stored = cluster.store.get("HorizontalPodAutoscaler", "team-a", "web32") as unknown as {
      spec: { maxReplicas: number; metrics: unknown };
    };
    assert.equal(stored.spec.maxReplicas, 3);
    assert.deepEqual(stored.spec.metrics, [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
      },
    ]);
  });

  it("a body that does not decode is a 400 BadRequest Status, and the server keeps serving", async () => {
    const { post } = setup();
    const bad = await post(
      "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
      // A valid envelope around a truncated object message.
      envelope("autoscaling/v2", "HorizontalPodAutoscaler", Buffer.from([0x0a, 0x05, 0x61])),
    );
    assert.equal(bad.status, 400);
    const status = bodyOf(bad) as unknown as {
      kind: string;
      reason: string;
      code: number;
      message: string;
    };
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "BadRequest");
    assert.equal(status.code, 400);
    assert.match(
      status.message,
      /^HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: /,
    );
    const good = await post("/api/v1/namespaces", hex(CAPTURED.namespace));
    assert.equal(good.status, 201);
  });

  it("an envelope of another kind than the URL's is rejected as a JSON body would be", async () => {
    const { post } = setup();
    const res = await post(
      "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
      hex(CAPTURED.namespace),
    );
    assert.equal(res.status, 400);
    assert.match(
      (bodyOf(res) as unknown as { message: string }).message,
      /does not match the expected API version/,
    );
  });
});
