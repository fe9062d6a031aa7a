// `horizon controller` flags: upstream names, defaults and errors naming the flag at fault.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ControllerCommandOptions,
  parseControllerOptions,
} from "../../src/controller-manager/options.js";

describe("horizon controller flags", () => {
  it("defaults are kube-controller-manager's", () => {
    const parsed = parseControllerOptions({});
    assert.ok(parsed.ok);
    const config = parsed.value;
    assert.equal(config.controller.syncPeriodMs, 15_000);
    assert.equal(config.controller.tolerance, 0.1);
    assert.equal(config.controller.downscaleStabilizationWindowMs, 300_000);
    assert.equal(config.controller.cpuInitializationPeriodMs, 300_000);
    assert.equal(config.controller.initialReadinessDelayMs, 30_000);
    assert.equal(config.controller.concurrentSyncs, 5);
    assert.equal(config.kubeApiQps, 20);
    assert.equal(config.kubeApiBurst, 30);
    assert.deepEqual(config.leaderElection, {
      enabled: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceName: "horizon-controller",
      resourceNamespace: null,
    });
    assert.deepEqual(config.metricsBindAddress, { host: "127.0.0.1", port: 8085 });
    assert.deepEqual(config.debugBindAddress, { host: "127.0.0.1", port: 8085 });
    assert.equal(config.hpaSelector, "");
    assert.deepEqual(config.dashboardBindAddress, { host: "127.0.0.1", port: 8086 });
    assert.equal(config.dashboardHistorySize, 240);
    assert.equal(config.dashboardHistoryMaxRecords, 240_000);
    assert.equal(config.dashboardTokenFile, null);
    assert.equal(config.dataDir, null);
  });

  const accepted: {
    name: string;
    options: ControllerCommandOptions;
    check: (c: Extract<ReturnType<typeof parseControllerOptions>, { ok: true }>["value"]) => void;
  }[] = [
    {
      name: "HPA durations in Go syntax",
      options: {
        horizontalPodAutoscalerSyncPeriod: "1m30s",
        horizontalPodAutoscalerDownscaleStabilization: "0s",
      },
      check: (c) => {
        assert.equal(c.controller.syncPeriodMs, 90_000);
        assert.equal(c.controller.downscaleStabilizationWindowMs, 0);
      },
    },
    {
      name: "--leader-elect=false turns election off",
      options: { leaderElect: "false" },
      check: (c) => assert.equal(c.leaderElection.enabled, false),
    },
    {
      name: "a bare --leader-elect turns it on",
      options: { leaderElect: true, leaderElectResourceNamespace: "horizon-system" },
      check: (c) => {
        assert.equal(c.leaderElection.enabled, true);
        assert.equal(c.leaderElection.resourceNamespace, "horizon-system");
      },
    },
    {
      name: "a wildcard metrics address keeps /debug off unless asked",
      options: { metricsBindAddress: "0.0.0.0:9000" },
      check: (c) => {
        assert.deepEqual(c.metricsBindAddress, { host: "0.0.0.0", port: 9000 });
        assert.equal(c.debugBindAddress, null);
      },
    },
    {
      name: "--metrics-bind-address 0 disables the server",
      options: { metricsBindAddress: "0" },
      check: (c) => assert.equal(c.metricsBindAddress, null),
    },
    {
      name: "the dashboard flags",
      options: {
        dashboardBindAddress: "0",
        dashboardHistorySize: "5760",
        dashboardHistoryMaxRecords: "1000000",
        dashboardTokenFile: "/etc/horizon/token",
        dataDir: "/var/lib/horizon",
      },
      check: (c) => {
        assert.equal(c.dashboardBindAddress, null);
        assert.equal(c.dashboardHistorySize, 5760);
        assert.equal(c.dashboardHistoryMaxRecords, 1_000_000);
        assert.equal(c.dashboardTokenFile, "/etc/horizon/token");
        assert.equal(c.dataDir, "/var/lib/horizon");
      },
    },
    {
      name: "a set-based --hpa-selector",
      options: { hpaSelector: "team in (a,b),!legacy" },
      check: (c) => assert.equal(c.hpaSelector, "team in (a,b),!legacy"),
    },
    {
      name: "--feature-gates",
      options: { featureGates: "HPAConfigurableTolerance=true" },
      check: (c) =>
        assert.equal(c.controller.featureGates.enabled("HPAConfigurableTolerance"), true),
    },
    {
      name: "--kubernetes-version, whose defaults the gates start from",
      options: { kubernetesVersion: "v1.34.3", featureGates: "HPAScaleToZero=true" },
      check: (c) => {
        assert.equal(c.controller.featureGates.version, "1.34");
        assert.equal(c.controller.featureGates.enabled("HPAConfigurableTolerance"), false);
        assert.equal(c.controller.featureGates.enabled("HPAScaleToZero"), true);
      },
    },
    {
      name: "no --kubernetes-version: the newest supported",
      options: {},
      check: (c) => assert.equal(c.controller.featureGates.version, "1.37"),
    },
  ];
  for (const c of accepted) {
    it(`accepts ${c.name}`, () => {
      const parsed = parseControllerOptions(c.options);
      assert.ok(parsed.ok, parsed.ok ? "" : parsed.errors.join("; "));
      c.check(parsed.value);
    });
  }

  const refused: { name: string; options: ControllerCommandOptions; error: RegExp }[] = [
    {
      name: "a sync period that is not a duration",
      options: { horizontalPodAutoscalerSyncPeriod: "15" },
      error: /^--horizontal-pod-autoscaler-sync-period: time: missing unit in duration "15"/,
    },
    {
      name: "a negative tolerance",
      options: { horizontalPodAutoscalerTolerance: "-0.1" },
      error: /^--horizontal-pod-autoscaler-tolerance: must not be negative$/,
    },
    {
      name: "zero workers",
      options: { concurrentHorizontalPodAutoscalerSyncs: "0" },
      error: /^--concurrent-horizontal-pod-autoscaler-syncs: must be greater than 0$/,
    },
    {
      name: "an unknown feature gate",
      options: { featureGates: "Bogus=true" },
      error: /^--feature-gates: .*Bogus/,
    },
    {
      name: "a gate the version locks",
      options: { featureGates: "HPAConfigurableTolerance=false" },
      error:
        /^--feature-gates: cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true$/,
    },
    {
      name: "an unsupported --kubernetes-version",
      options: { kubernetesVersion: "1.38" },
      error:
        /^--kubernetes-version: unsupported Kubernetes version "1\.38": supported versions are 1\.34, 1\.35, 1\.36, 1\.37$/,
    },
    {
      name: "qps zero",
      options: { kubeApiQps: "0" },
      error: /^--kube-api-qps: must be a number greater than 0, got "0"$/,
    },
    {
      name: "a fractional burst",
      options: { kubeApiBurst: "2.5" },
      error: /^--kube-api-burst: must be an integer, got "2.5"$/,
    },
    {
      name: "a malformed --hpa-selector",
      options: { hpaSelector: "a in (" },
      error: /^--hpa-selector: /,
    },
    {
      name: "--leader-elect=maybe",
      options: { leaderElect: "maybe" },
      error: /^--leader-elect: must be true or false, got "maybe"$/,
    },
    {
      name: "a lease no longer than the renew deadline",
      options: { leaderElectLeaseDuration: "10s" },
      error: /^--leader-elect-lease-duration: leaseDuration must be greater than renewDeadline$/,
    },
    {
      name: "a renew deadline within the jittered retry period",
      options: { leaderElectRenewDeadline: "2s", leaderElectLeaseDuration: "3s" },
      error:
        /^--leader-elect-renew-deadline: renewDeadline must be greater than retryPeriod\*JitterFactor$/,
    },
    {
      name: "a bad bind address",
      options: { metricsBindAddress: "8085" },
      error: /^--metrics-bind-address: must be HOST:PORT \(or 0 to disable\), got "8085"$/,
    },
    { name: "-v words", options: { v: "high" }, error: /^-v: must be a non-negative integer/ },
    {
      name: "a dashboard address without a port",
      options: { dashboardBindAddress: "localhost" },
      error: /^--dashboard-bind-address: must be HOST:PORT \(or 0 to disable\), got "localhost"$/,
    },
    {
      name: "a history size of 0",
      options: { dashboardHistorySize: "0" },
      error:
        /^--dashboard-history-size: must be an integer from 1 to 100000 \(syncs kept per HPA\), got "0"$/,
    },
    {
      name: "a fractional history size",
      options: { dashboardHistorySize: "1.5" },
      error: /^--dashboard-history-size: must be an integer from 1 to 100000/,
    },
    {
      name: "a history budget of 0",
      options: { dashboardHistoryMaxRecords: "0" },
      error:
        /^--dashboard-history-max-records: must be an integer from 1 to 100000000 \(syncs kept across HPAs\), got "0"$/,
    },
    {
      name: "an empty --data-dir",
      options: { dataDir: "" },
      error: /^--data-dir: must name a directory$/,
    },
  ];
  for (const c of refused) {
    it(`refuses ${c.name}`, () => {
      const parsed = parseControllerOptions(c.options);
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.ok(
        parsed.errors.some((e) => c.error.test(e)),
        `no error matched ${c.error}: ${parsed.errors.join("; ")}`,
      );
    });
  }
});
