// The API server fuzz suite's short run (about a minute): seeded cases over every served kind
// and write verb (test/fuzz/harness.ts), then kubectl and the controllers over what was stored.
// HORIZON_FUZZ_SEED=N replays a run; `npm run fuzz -- --cases N` runs longer.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { KIND_LIST } from "../../src/kinds/registry.js";
import { findKubectls, kubectlRequired } from "../e2e/helpers.js";
import {
  type FuzzServer,
  fuzzCase,
  KIND_CASES,
  kubectlReads,
  mutate,
  runCase,
  runControllers,
  startFuzzServer,
} from "./harness.js";

type Json = ReturnType<typeof JSON.parse>;

// A fixed seed keeps `npm test` repeatable; HORIZON_FUZZ_SEED (or `npm run fuzz`) explores others.
const seed = Number(process.env.HORIZON_FUZZ_SEED ?? 20261124);
const numRuns = Number(process.env.HORIZON_FUZZ_CASES ?? 300);

describe("API server fuzz", () => {
  let server: FuzzServer;
  before(async () => {
    server = await startFuzzServer();
  });
  after(async () => {
    await server.close();
  });

  it(`mutated writes of every kind and verb (seed ${seed})`, async () => {
    console.log(`fuzz seed ${seed} (HORIZON_FUZZ_SEED=${seed} replays it)`);
    let cases = 0;
    let stored = 0;
    const result = await fc.check(
      fc.asyncProperty(fuzzCase, async (c) => {
        cases++;
        if ((await runCase(server, c)).stored) stored++;
      }),
      { seed, numRuns },
    );
    console.log(`fuzz: ${cases} cases, ${stored} stored`);
    if (result.failed) {
      const why = result.errorInstance instanceof Error ? result.errorInstance.message : "";
      assert.fail(
        `${why}\n${fc.defaultReportMessage(result)}\nseed ${seed}: HORIZON_FUZZ_SEED=${seed} replays it`,
      );
    }
    assert.ok(stored > 0, "no case stored anything: the valid objects are refused");
  });

  it("kubectl get -o json and describe work on every stored object", async (t) => {
    const found = findKubectls([]);
    const binary = found.binaries[0];
    if (!binary) {
      if (kubectlRequired())
        assert.fail(`kubectl is required under CI=true: ${found.missing.join("; ")}`);
      t.skip(`no kubectl: ${found.missing.join("; ")}`);
      return;
    }
    assert.deepEqual(await kubectlReads(server, binary), [], `seed ${seed}`);
  });

  it("the controllers run over the stored objects without an error", async () => {
    const errors = await runControllers(server);
    assert.deepEqual(errors, [], `seed ${seed}`);
  });
});

describe("the fuzz suite's cases are isolated", () => {
  let server: FuzzServer;
  before(async () => {
    server = await startFuzzServer();
  });
  after(async () => {
    await server.close();
  });

  it("a stored ResourceQuota of 0 cpu (seed 11) does not refuse a later case's valid Pod", async () => {
    const quota = KIND_CASES.findIndex((k) => k.kind === "ResourceQuota");
    const pod = KIND_CASES.findIndex((k) => k.kind === "Pod");
    const { apiVersion, kind, valid: make } = KIND_CASES[quota]!;
    const valid = { apiVersion, kind, ...make("q") };
    // The path index of spec.hard["requests.cpu"] among the valid object's paths (as runCase
    // mutates it: with apiVersion and kind).
    const at = [...Array(64).keys()].find((i) => {
      const mutated = mutate(valid, [{ op: "set", at: i, value: "0" }]) as Json;
      return mutated?.spec?.hard?.["requests.cpu"] === "0";
    });
    assert.notEqual(at, undefined);
    const noPatch = [{ op: "test", at: 0, from: 0, value: null, append: false }];
    const stored = await runCase(server, {
      kind: quota,
      verb: "create",
      mutations: [{ op: "set", at: at!, value: "0" }],
      patch: noPatch,
      strict: false,
    });
    assert.deepEqual(stored, { stored: true });
    const quotas = server.cluster.store.list("ResourceQuota");
    assert.deepEqual(
      quotas.map((q) => (q.spec as Json).hard["requests.cpu"]),
      ["0"],
    );
    // The counterexample seed 11 shrank to: the valid Pod is created, then a PUT of `0`.
    await runCase(server, {
      kind: pod,
      verb: "update",
      mutations: [{ op: "set", at: 0, value: 0 }],
      patch: noPatch,
      strict: false,
    });
  });
});

describe("the fuzz suite's kinds", () => {
  it("cover every served kind that takes writes", () => {
    const writable = KIND_LIST.filter((d) => d.verbs.includes("create")).map((d) => d.kind);
    assert.deepEqual(new Set(KIND_CASES.map((k) => k.kind)), new Set(writable));
  });
});
