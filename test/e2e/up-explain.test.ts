// `horizon explain` against `horizon up`: its controller serves /metrics and the decision traces
// on --metrics-bind-address (default 127.0.0.1:8085, else a free port when that one is taken),
// the banner prints the explain command that works, and the kubeconfig it writes names the
// address for `horizon explain --kubeconfig`. Real processes for the CLI; the fallback in-process
// on a port this test holds (8085 may be anyone's).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { controllerDebugAddressOf } from "../../src/apiserver/kubeconfig.js";
import { usageBanner } from "../../src/cli/up.js";
import { fetchDecisions } from "../../src/explain/decisions.js";
import { loadScenarioFile } from "../../src/sim/scenario.js";
import { startUp } from "../../src/up/up.js";
import { pollUntil, spawnHorizon } from "./helpers.js";

const root = join(import.meta.dirname, "..", "..");
const example = join(root, "examples", "cpu-step.yaml");
const dir = mkdtempSync(join(tmpdir(), "horizon-up-explain-"));

const horizon = (args: string[]) => spawnHorizon(args);

/** A port of this test's, held until closed. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return { port: address.port, server };
}

const BANNER = /^ {4}\/metrics and decisions on (http:\/\/127\.0\.0\.1:\d+) \((.*)\)$/m;

describe("horizon explain against horizon up (processes)", () => {
  const kubeconfig = join(dir, "kubeconfig");
  let up: ReturnType<typeof horizon>;
  let address = "";

  before(async () => {
    // The default --metrics-bind-address: 8085 if free, else a free port (both are printed).
    up = horizon([
      "up",
      example,
      "--port",
      "0",
      "--kubeconfig-out",
      kubeconfig,
      "--sync-period",
      "1s",
      "--dashboard-bind-address",
      "0",
    ]);
    let exitCode: number | null | undefined;
    void up.exited.then((code) => {
      exitCode = code;
    });
    const banner = await pollUntil(
      "the banner",
      () => {
        if (exitCode !== undefined) {
          throw new Error(`horizon up exited (${exitCode}):\n${up.stdout()}\n${up.stderr()}`);
        }
        return /^Press Ctrl-C/m.test(up.stdout()) ? BANNER.exec(up.stdout()) : undefined;
      },
      { timeoutMs: 60_000 },
    );
    assert.ok(banner, up.stdout());
    address = banner[1]!;
    const command = banner[2]!;
    if (address === "http://127.0.0.1:8085") assert.equal(command, "horizon explain hpa/NAME");
    else {
      assert.equal(command, `8085 was in use: horizon explain hpa/NAME --address ${address}`);
    }
    await pollUntil(
      "a decision trace of default/web",
      async () => {
        const fetched = await fetchDecisions(address, "default", "web");
        return fetched.ok && fetched.value.length > 0 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  });
  after(async () => {
    up.child.kill("SIGINT");
    assert.equal(await up.exited, 0, up.stderr());
  });

  it("--address as printed: an explanation, exit 0", async () => {
    const explain = horizon(["explain", "hpa/web", "--address", address]);
    assert.equal(await explain.exited, 0, explain.stderr());
    assert.ok(
      explain.stdout().startsWith(`HPA default/web — from the controller at ${address}\n`),
      explain.stdout(),
    );
    assert.match(explain.stdout(), /^Latest sync: /m);
    assert.match(explain.stdout(), /^Why:$/m);
  });

  it("--kubeconfig of `horizon up`: found without a Lease, exit 0", async () => {
    assert.equal(controllerDebugAddressOf(readFileSync(kubeconfig, "utf8")), address);
    const explain = horizon(["explain", "hpa/web", "--kubeconfig", kubeconfig]);
    assert.equal(await explain.exited, 0, explain.stderr());
    assert.ok(
      explain
        .stdout()
        .startsWith(`HPA default/web — from the controller of \`horizon up\` at ${address}\n`),
      explain.stdout(),
    );
  });

  it("/metrics and /readyz beside the decisions", async () => {
    const metrics = await fetch(`${address}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^# HELP /m);
    const ready = await fetch(`${address}/readyz`);
    assert.equal(await ready.text(), "ok");
  });
});

describe("horizon up's bind addresses in use", () => {
  it("given by the user: exit 1, naming the flag", async () => {
    const held = await holdPort();
    try {
      const up = horizon([
        "up",
        "--port",
        "0",
        "--kubeconfig-out",
        join(dir, "busy-kubeconfig"),
        "--dashboard-bind-address",
        "0",
        "--metrics-bind-address",
        `127.0.0.1:${held.port}`,
      ]);
      assert.equal(await up.exited, 1, up.stdout());
      assert.match(
        up.stderr(),
        new RegExp(`^error: --metrics-bind-address: .*EADDRINUSE.*:${held.port}$`, "m"),
      );
    } finally {
      held.server.close();
    }
  });

  it("--dashboard-bind-address in use: exit 1, the error names that flag alone", async () => {
    const held = await holdPort();
    try {
      const up = horizon([
        "up",
        "--port",
        "0",
        "--kubeconfig-out",
        join(dir, "busy-dashboard-kubeconfig"),
        "--dashboard-bind-address",
        `127.0.0.1:${held.port}`,
        "--metrics-bind-address",
        "0",
      ]);
      assert.equal(await up.exited, 1, up.stdout());
      assert.match(
        up.stderr(),
        new RegExp(`^error: --dashboard-bind-address: .*EADDRINUSE.*:${held.port}$`, "m"),
      );
    } finally {
      held.server.close();
    }
  });

  it("the default: a free port of the same host, printed with the explain command", async () => {
    const held = await holdPort();
    const loaded = await loadScenarioFile(example);
    assert.ok(loaded.ok);
    const kubeconfig = join(dir, "fallback-kubeconfig");
    // The CLI's default address with the fallback, on a port held here instead of 8085.
    const address = { host: "127.0.0.1", port: held.port };
    const options = {
      scenario: loaded.scenario,
      port: 0,
      kubeconfigOut: kubeconfig,
      metricsBindAddress: address,
      debugBindAddress: address,
      metricsBindFallback: true,
    };
    const started = await startUp(options);
    try {
      assert.ok(started.ok, started.ok ? "" : started.error);
      const served = started.value.controller?.server;
      assert.ok(served?.debugUrl);
      assert.equal(served.metricsUrl, served.debugUrl);
      assert.notEqual(new URL(served.debugUrl).port, String(held.port));
      const banner = usageBanner(started.value, options, "test");
      assert.ok(
        banner.includes(
          `    /metrics and decisions on ${served.debugUrl} (${held.port} was in use: horizon explain hpa/NAME --address ${served.debugUrl})`,
        ),
        banner.join("\n"),
      );
      assert.equal(controllerDebugAddressOf(readFileSync(kubeconfig, "utf8")), served.debugUrl);
      assert.equal(controllerDebugAddressOf(started.value.kubeconfig), served.debugUrl);
      const ready = await fetch(`${served.debugUrl}/healthz?verbose`);
      assert.equal(ready.status, 200);
      // As upstream's healthz with no checks of its own: the ping check, then the verdict.
      assert.equal(await ready.text(), "[+]ping ok\nhealthz check passed\n");
    } finally {
      if (started.ok) await started.value.close();
      held.server.close();
    }
  });
});
