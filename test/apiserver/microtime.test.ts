// metav1.Time / metav1.MicroTime decoding as kube-apiserver does it: Go's time.Parse errors for
// the RFC3339 and RFC3339Micro layouts, UTC re-encoding, per-kind fields, and the Status a bad
// value gets on create, update and patch.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createApiHandler } from "../../src/apiserver/handler.js";
import {
  formatGoTime,
  goMapString,
  normalizeTimes,
  normalizeTimeValue,
  parseGoTime,
  type TimeType,
  timeDecodeFailure,
} from "../../src/apiserver/microtime.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

const MICRO = '"2006-01-02T15:04:05.000000Z07:00"';
const SECONDS = '"2006-01-02T15:04:05Z07:00"';

describe("normalizeTimeValue", () => {
  const cases: {
    name: string;
    type: TimeType;
    input: unknown;
    expected?: string | null;
    error?: string;
  }[] = [
    {
      name: "MicroTime with six digits is kept",
      type: "MicroTime",
      input: "2024-05-01T10:00:00.123456Z",
      expected: "2024-05-01T10:00:00.123456Z",
    },
    {
      name: "MicroTime with an offset is written in UTC",
      type: "MicroTime",
      input: "2024-05-01T10:00:00.000001+02:30",
      expected: "2024-05-01T07:30:00.000001Z",
    },
    {
      name: "MicroTime with a comma separator (Go accepts it)",
      type: "MicroTime",
      input: "2024-05-01T10:00:00,500000Z",
      expected: "2024-05-01T10:00:00.500000Z",
    },
    {
      name: "MicroTime without fractional digits is rejected",
      type: "MicroTime",
      input: "2024-05-01T10:00:00Z",
      error: `parsing time "2024-05-01T10:00:00Z" as ${MICRO}: cannot parse "Z" as ".000000"`,
    },
    {
      name: "MicroTime with three digits is rejected",
      type: "MicroTime",
      input: "2024-05-01T10:00:00.123Z",
      error: `parsing time "2024-05-01T10:00:00.123Z" as ${MICRO}: cannot parse ".123Z" as ".000000"`,
    },
    {
      name: "MicroTime with three digits and an offset is rejected",
      type: "MicroTime",
      input: "2024-05-01T10:00:00.123+01:00",
      error: `parsing time "2024-05-01T10:00:00.123+01:00" as ${MICRO}: cannot parse ".123+01:00" as ".000000"`,
    },
    {
      name: "MicroTime with nine digits is rejected at the zone",
      type: "MicroTime",
      input: "2024-05-01T10:00:00.123456789Z",
      error: `parsing time "2024-05-01T10:00:00.123456789Z" as ${MICRO}: cannot parse "789Z" as "Z07:00"`,
    },
    {
      name: "MicroTime with trailing text",
      type: "MicroTime",
      input: "2024-05-01T10:00:00.123456Zjunk",
      error: `parsing time "2024-05-01T10:00:00.123456Zjunk": extra text: "junk"`,
    },
    {
      name: "MicroTime zero instant is written as null",
      type: "MicroTime",
      input: "0001-01-01T00:00:00.000000Z",
      expected: null,
    },
    { name: "JSON null stays null", type: "MicroTime", input: null, expected: null },
    {
      name: "a number is not a string",
      type: "MicroTime",
      input: 1714557600,
      error: "json: cannot unmarshal number into Go value of type string",
    },
    {
      name: "an object is not a string",
      type: "Time",
      input: { seconds: 1 },
      error: "json: cannot unmarshal object into Go value of type string",
    },
    {
      name: "Time drops fractional seconds and converts to UTC",
      type: "Time",
      input: "2024-05-01T10:00:00.987654321-01:00",
      expected: "2024-05-01T11:00:00Z",
    },
    {
      name: "Time at second precision is kept",
      type: "Time",
      input: "2024-05-01T10:00:00Z",
      expected: "2024-05-01T10:00:00Z",
    },
    {
      name: "Time with a one-digit hour (Go's stdHour)",
      type: "Time",
      input: "2024-05-01T9:00:00Z",
      expected: "2024-05-01T09:00:00Z",
    },
    {
      name: "Time without a zone",
      type: "Time",
      input: "2024-05-01T10:00:00",
      error: `parsing time "2024-05-01T10:00:00" as ${SECONDS}: cannot parse "" as "Z07:00"`,
    },
    {
      name: "Time date only",
      type: "Time",
      input: "2024-05-01",
      error: `parsing time "2024-05-01" as ${SECONDS}: cannot parse "" as "T"`,
    },
    {
      name: "Time with a lower-case t",
      type: "Time",
      input: "2024-05-01t10:00:00Z",
      error: `parsing time "2024-05-01t10:00:00Z" as ${SECONDS}: cannot parse "t10:00:00Z" as "T"`,
    },
    {
      name: "Time month out of range",
      type: "Time",
      input: "2024-13-01T10:00:00Z",
      error: `parsing time "2024-13-01T10:00:00Z": month out of range`,
    },
    {
      name: "Time day out of range (not a leap year)",
      type: "Time",
      input: "2023-02-29T10:00:00Z",
      error: `parsing time "2023-02-29T10:00:00Z": day out of range`,
    },
    {
      name: "Time on a leap day",
      type: "Time",
      input: "2024-02-29T10:00:00Z",
      expected: "2024-02-29T10:00:00Z",
    },
    {
      name: "Time hour out of range",
      type: "Time",
      input: "2024-05-01T24:00:00Z",
      error: `parsing time "2024-05-01T24:00:00Z": hour out of range`,
    },
    {
      name: "Time not a date",
      type: "Time",
      input: "yesterday",
      error: `parsing time "yesterday" as ${SECONDS}: cannot parse "yesterday" as "2006"`,
    },
    {
      name: "non-ASCII bytes are quoted as Go's time package does",
      type: "Time",
      input: "2024-05-01T10:00:00Zé",
      error: `parsing time "2024-05-01T10:00:00Z\\xc3\\xa9": extra text: "\\xc3\\xa9"`,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const result = normalizeTimeValue(tc.type, tc.input);
      if (tc.error !== undefined) assert.deepEqual(result, { ok: false, error: tc.error });
      else assert.deepEqual(result, { ok: true, value: tc.expected });
    });
  }
});

describe("MicroTime properties", () => {
  const instant = fc.record({
    // Years 1..9999 after Go's zero instant (a day's margin for zone shifts), plus microseconds.
    sec: fc.integer({ min: -62135596800 + 86400, max: 253402300799 - 86400 }),
    micros: fc.integer({ min: 0, max: 999_999 }),
  });

  it("formatting then parsing gives the instant back (any zone offset)", () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -23 * 60, max: 23 * 60 }), (t, offsetMin) => {
        const text = formatGoTime("MicroTime", { sec: t.sec, nsec: t.micros * 1000 });
        // Re-express the same instant in another zone: the stored value is the UTC one.
        const local = formatGoTime("MicroTime", {
          sec: t.sec + offsetMin * 60,
          nsec: t.micros * 1000,
        }).slice(0, -1);
        const sign = offsetMin < 0 ? "-" : "+";
        const abs = Math.abs(offsetMin);
        const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
        assert.deepEqual(normalizeTimeValue("MicroTime", text), { ok: true, value: text });
        assert.deepEqual(normalizeTimeValue("MicroTime", `${local}${zone}`), {
          ok: true,
          value: text,
        });
      }),
    );
  });

  it("a MicroTime is accepted exactly when it has six fractional digits", () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: 0, max: 9 }), (t, digits) => {
        const base = formatGoTime("Time", { sec: t.sec, nsec: 0 }).slice(0, -1);
        const fraction = digits === 0 ? "" : `.${"7".repeat(digits)}`;
        const result = parseGoTime("MicroTime", `${base}${fraction}Z`);
        assert.equal(result.ok, digits === 6);
        // metav1.Time takes any number of digits and writes whole seconds.
        assert.deepEqual(normalizeTimeValue("Time", `${base}${fraction}Z`), {
          ok: true,
          value: `${base}Z`,
        });
      }),
    );
  });
});

describe("normalizeTimes", () => {
  const cases: {
    name: string;
    kind: string;
    input: unknown;
    expected?: unknown;
    error?: string;
  }[] = [
    {
      name: "Lease spec times: UTC, null pointers dropped",
      kind: "Lease",
      input: {
        metadata: { name: "l", creationTimestamp: "2024-05-01T10:00:00.5Z" },
        spec: {
          holderIdentity: "a",
          acquireTime: null,
          renewTime: "2024-05-01T12:00:00.000100+02:00",
        },
      },
      expected: {
        metadata: { name: "l", creationTimestamp: "2024-05-01T10:00:00Z" },
        spec: { holderIdentity: "a", renewTime: "2024-05-01T10:00:00.000100Z" },
      },
    },
    {
      name: "Lease renewTime at second precision fails",
      kind: "Lease",
      input: { metadata: { name: "l" }, spec: { renewTime: "2024-05-01T12:00:00Z" } },
      error: `parsing time "2024-05-01T12:00:00Z" as ${MICRO}: cannot parse "Z" as ".000000"`,
    },
    {
      name: "Event: Time and MicroTime fields, series included",
      kind: "Event",
      input: {
        metadata: { name: "e" },
        firstTimestamp: "2024-05-01T10:00:00.9Z",
        lastTimestamp: null,
        eventTime: "2024-05-01T10:00:00.123456Z",
        series: { count: 2, lastObservedTime: "2024-05-01T11:00:00.000000+01:00" },
      },
      expected: {
        metadata: { name: "e" },
        firstTimestamp: "2024-05-01T10:00:00Z",
        lastTimestamp: null,
        eventTime: "2024-05-01T10:00:00.123456Z",
        series: { count: 2, lastObservedTime: "2024-05-01T10:00:00.000000Z" },
      },
    },
    {
      name: "Event: the first bad field in document order decides",
      kind: "Event",
      input: {
        metadata: { name: "e" },
        eventTime: "2024-05-01T10:00:00.123Z",
        firstTimestamp: "nope",
      },
      error: `parsing time "2024-05-01T10:00:00.123Z" as ${MICRO}: cannot parse ".123Z" as ".000000"`,
    },
    {
      name: "HPA status times",
      kind: "HorizontalPodAutoscaler",
      input: {
        status: {
          lastScaleTime: "2024-05-01T10:00:00.25Z",
          conditions: [{ type: "AbleToScale", lastTransitionTime: "2024-05-01T10:00:00+00:00" }],
        },
      },
      expected: {
        status: {
          lastScaleTime: "2024-05-01T10:00:00Z",
          conditions: [{ type: "AbleToScale", lastTransitionTime: "2024-05-01T10:00:00Z" }],
        },
      },
    },
    {
      name: "Pod container state times",
      kind: "Pod",
      input: {
        status: {
          containerStatuses: [{ name: "c", state: { running: { startedAt: "bad" } } }],
        },
      },
      error: `parsing time "bad" as ${SECONDS}: cannot parse "bad" as "2006"`,
    },
    {
      name: "a kind without time fields is left alone",
      kind: "Unknown",
      input: { eventTime: "whatever" },
      expected: { eventTime: "whatever" },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const before = structuredClone(tc.input);
      const result = normalizeTimes(tc.kind, tc.input);
      if (tc.error !== undefined) assert.deepEqual(result, { ok: false, error: tc.error });
      else assert.deepEqual(result, { ok: true, value: tc.expected });
      assert.deepEqual(tc.input, before, "the input is not mutated");
    });
  }
});

describe("goMapString", () => {
  const cases = [
    {
      name: "sorted keys, nested maps and slices",
      input: { spec: { renewTime: "x", b: [1, true, null] }, a: 1.5 },
      expected: "map[a:1.5 spec:map[b:[1 true <nil>] renewTime:x]]",
    },
    { name: "float64 in exponent form from 1e6", input: { n: 1000000 }, expected: "map[n:1e+06]" },
    { name: "below 1e6 printed plainly", input: { n: 123456 }, expected: "map[n:123456]" },
    { name: "small numbers", input: { n: 0.00001 }, expected: "map[n:1e-05]" },
  ];
  for (const tc of cases) {
    it(tc.name, () => assert.equal(goMapString(tc.input), tc.expected));
  }
});

describe("timeDecodeFailure", () => {
  it("create/update: transformDecodeError's 400", () => {
    assert.deepEqual(timeDecodeFailure({ kind: "Lease", version: "v1" }, "boom").status, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Lease in version "v1" cannot be handled as a Lease: boom',
      reason: "BadRequest",
      code: 400,
    });
  });
  it("strategic merge patch: 422 on patch with the patch map", () => {
    const status = timeDecodeFailure(
      {
        kind: "Lease",
        version: "v1",
        patch: {
          contentType: "application/strategic-merge-patch+json",
          body: { spec: { renewTime: "x" } },
          patched: {},
        },
      },
      "boom",
    ).status;
    assert.equal(status.code, 422);
    assert.equal(
      status.message,
      ' "" is invalid: patch: Invalid value: "map[spec:map[renewTime:x]]": boom',
    );
    assert.deepEqual(status.details, {
      causes: [
        {
          reason: "FieldValueInvalid",
          message: 'Invalid value: "map[spec:map[renewTime:x]]": boom',
          field: "patch",
        },
      ],
    });
  });
});

// Through the handler, as kubectl and client-node reach it.
function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = (
    method: string,
    url: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<ApiResponse> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: { "content-type": contentType },
    };
    if (body !== undefined) req.body = Buffer.from(JSON.stringify(body));
    return handler(req);
  };
  return { cluster, call };
}

type Json = ReturnType<typeof JSON.parse>;
function json(res: ApiResponse): Json {
  assert.ok("body" in res, "expected a JSON body");
  return res.body;
}

const LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
const EVENTS = "/api/v1/namespaces/default/events";

function lease(renewTime: string | null) {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "leader" },
    spec: { holderIdentity: "a", leaseDurationSeconds: 15, renewTime },
  };
}

describe("handler: MicroTime strictness", () => {
  const creates = [
    {
      name: "Lease renewTime at second precision",
      url: LEASES,
      body: lease("2024-05-01T10:00:00Z") as unknown,
      message: `Lease in version "v1" cannot be handled as a Lease: parsing time "2024-05-01T10:00:00Z" as ${MICRO}: cannot parse "Z" as ".000000"`,
    },
    {
      name: "Lease renewTime with milliseconds (JavaScript's toISOString)",
      url: LEASES,
      body: lease("2024-05-01T10:00:00.123Z"),
      message: `Lease in version "v1" cannot be handled as a Lease: parsing time "2024-05-01T10:00:00.123Z" as ${MICRO}: cannot parse ".123Z" as ".000000"`,
    },
    {
      name: "Event eventTime with milliseconds",
      url: EVENTS,
      body: {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "e1" },
        involvedObject: { kind: "Pod", name: "p", namespace: "default" },
        eventTime: "2024-05-01T10:00:00.123Z",
      },
      message: `Event in version "v1" cannot be handled as a Event: parsing time "2024-05-01T10:00:00.123Z" as ${MICRO}: cannot parse ".123Z" as ".000000"`,
    },
  ];
  for (const tc of creates) {
    it(`create: ${tc.name} → 400`, async () => {
      const { call, cluster } = setup();
      const res = await call("POST", tc.url, tc.body);
      assert.equal(res.status, 400);
      assert.deepEqual(json(res), {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: tc.message,
        reason: "BadRequest",
        code: 400,
      });
      assert.equal(cluster.store.list("Lease").length + cluster.store.list("Event").length, 0);
    });
  }

  it("create: stores and serves MicroTime in UTC with six digits, Time at seconds", async () => {
    const { call } = setup();
    const created = await call("POST", LEASES, lease("2024-05-01T12:00:00.000001+02:00"));
    assert.equal(created.status, 201);
    assert.equal(json(created).spec.renewTime, "2024-05-01T10:00:00.000001Z");
    const event = await call("POST", EVENTS, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "e2" },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      firstTimestamp: "2024-05-01T10:00:00.75+00:00",
      eventTime: "2024-05-01T10:00:00.750000Z",
    });
    assert.equal(event.status, 201);
    assert.equal(json(event).firstTimestamp, "2024-05-01T10:00:00Z");
    const got = json(await call("GET", `${EVENTS}/e2`));
    assert.equal(got.eventTime, "2024-05-01T10:00:00.750000Z");
  });

  it("update: a bad renewTime → 400, the stored Lease unchanged", async () => {
    const { call } = setup();
    const created = json(await call("POST", LEASES, lease("2024-05-01T10:00:00.000000Z")));
    const res = await call("PUT", `${LEASES}/leader`, {
      ...created,
      spec: { ...created.spec, renewTime: "2024-05-01T10:00:05Z" },
    });
    assert.equal(res.status, 400);
    assert.match(json(res).message, /^Lease in version "v1" cannot be handled as a Lease: /);
    const got = json(await call("GET", `${LEASES}/leader`));
    assert.equal(got.spec.renewTime, "2024-05-01T10:00:00.000000Z");
  });

  it("merge patch: a bad renewTime → 422 Invalid on patch", async () => {
    const { call } = setup();
    await call("POST", LEASES, lease("2024-05-01T10:00:00.000000Z"));
    const res = await call(
      "PATCH",
      `${LEASES}/leader`,
      { spec: { renewTime: "2024-05-01T10:00:05Z" } },
      "application/merge-patch+json",
    );
    assert.equal(res.status, 422);
    const status = json(res);
    assert.equal(status.reason, "Invalid");
    assert.equal(status.details.causes[0].field, "patch");
    assert.match(
      status.message,
      /^ "" is invalid: patch: Invalid value: ".*": parsing time "2024-05-01T10:00:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"$/,
    );
  });

  it("strategic merge patch with six digits is accepted", async () => {
    const { call } = setup();
    await call("POST", LEASES, lease("2024-05-01T10:00:00.000000Z"));
    const res = await call(
      "PATCH",
      `${LEASES}/leader`,
      { spec: { renewTime: "2024-05-01T10:00:05.000000Z" } },
      "application/strategic-merge-patch+json",
    );
    assert.equal(res.status, 200);
    assert.equal(json(res).spec.renewTime, "2024-05-01T10:00:05.000000Z");
  });
});
