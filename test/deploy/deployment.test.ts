// deploy/deployment.yaml's controller args, as written, start a controller that stays up: its
// listeners (those the args name and the defaults they leave, e.g. the dashboard's) must not
// collide. Only the API server's address and credentials (a kubeconfig) are substituted; when
// the manifest's ports are taken on this machine, every port moves by one offset, so two
// listeners that share a port in the manifest still share one here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { DEBUG_ADDRESS_ANNOTATION } from "../../src/controller/server.js";
import { CONTROLLER_DEFAULTS } from "../../src/controller-manager/options.js";
import {
  type ControllerProcess,
  killAll,
  ROOT,
  spawnController,
} from "../e2e/controller-helpers.js";
import { pollUntil, startTestServer, type TestServer } from "../e2e/helpers.js";

interface Container {
  args: string[];
  env?: { name: string }[];
}

const deployment = parse(readFileSync(join(ROOT, "deploy", "deployment.yaml"), "utf8")) as {
  spec: { template: { spec: { containers: Container[] } } };
};
const container = deployment.spec.template.spec.containers[0]!;
// kustomization.yaml puts everything in this namespace ($(POD_NAMESPACE) in the pod).
const NAMESPACE = "horizon-system";

const LISTENERS = ["metrics", "debug", "dashboard"] as const;
type Listener = (typeof LISTENERS)[number];
const DEFAULTS: Record<Listener, string | null> = {
  metrics: CONTROLLER_DEFAULTS.metricsBindAddress,
  // Without the flag /debug shares the metrics listener (or is not served): no port of its own.
  debug: null,
  dashboard: CONTROLLER_DEFAULTS.dashboardBindAddress,
};

/** host:port of each listener as the pod runs it: the manifest's flag, else the default. */
function listenersOf(
  args: readonly string[],
): Record<Listener, { host: string; port: number } | null> {
  const out = {} as Record<Listener, { host: string; port: number } | null>;
  for (const listener of LISTENERS) {
    const flag = args.find((a) => a.startsWith(`--${listener}-bind-address=`));
    const value = flag ? flag.slice(flag.indexOf("=") + 1) : DEFAULTS[listener];
    const match = value === null ? null : /^(.*):(\d+)$/.exec(value);
    out[listener] = match && match[2] !== "0" ? { host: match[1]!, port: Number(match[2]) } : null;
  }
  return out;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    // The wildcard address conflicts with a listener on any local address.
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}

/** 0 when the manifest's ports are free here, else an offset that frees them all. */
async function freeOffset(ports: readonly number[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const offset = attempt === 0 ? 0 : 1000 + Math.floor(Math.random() * 40_000);
    const free = await Promise.all(ports.map((p) => portFree(p + offset)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error(`no offset frees ports ${ports.join(", ")}`);
}

describe("deploy/deployment.yaml's controller args, as written", () => {
  const args = container.args.slice(1);
  const listeners = listenersOf(args);

  it("run `horizon controller` with leader election in the pod's namespace", () => {
    assert.equal(container.args[0], "controller");
    assert.ok(args.includes("--leader-elect"), args.join(" "));
    assert.ok(args.includes("--leader-elect-resource-namespace=$(POD_NAMESPACE)"));
    assert.ok(container.env?.some((e) => e.name === "POD_NAMESPACE"));
  });

  it("give every listener a port of its own (the flags and the defaults they leave)", () => {
    const seen = new Map<number, Listener>();
    for (const listener of LISTENERS) {
      const address = listeners[listener];
      if (!address) continue;
      const other = seen.get(address.port);
      assert.equal(
        other,
        undefined,
        `--${listener}-bind-address and --${other}-bind-address share port ${address.port}`,
      );
      seen.set(address.port, listener);
    }
    // The probes and the Service reach /healthz and /readyz on the metrics port.
    assert.equal(listeners.metrics?.port, 8085);
  });

  describe("a controller started with them", () => {
    let server: TestServer;
    let controller: ControllerProcess | undefined;
    let offset = 0;

    before(async () => {
      server = await startTestServer({ controller: false });
      server.up.cluster.store.create({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: NAMESPACE },
      });
      const ports = new Set(LISTENERS.flatMap((l) => (listeners[l] ? [listeners[l].port] : [])));
      offset = await freeOffset([...ports]);
      const moved = args.map((arg) => {
        const match = /^(--(?:metrics|debug|dashboard)-bind-address=.*:)(\d+)$/.exec(arg);
        return match && offset !== 0 ? `${match[1]}${Number(match[2]) + offset}` : arg;
      });
      // A default port moves too, so a flag that collides with it still does.
      for (const listener of LISTENERS) {
        const flag = `--${listener}-bind-address=`;
        const address = listeners[listener];
        if (offset !== 0 && address && !args.some((a) => a.startsWith(flag))) {
          moved.push(`${flag}${address.host}:${address.port + offset}`);
        }
      }
      controller = spawnController("deploy-args", [
        ...moved.map((arg) => arg.replace("$(POD_NAMESPACE)", NAMESPACE)),
        `--kubeconfig=${server.up.kubeconfigPath!}`,
      ]);
    });
    after(async () => {
      if (controller) await killAll([controller]);
      await server?.up.close();
    });

    const log = () => controller!.logs.map((l) => JSON.stringify(l)).join("\n");
    const url = (listener: Listener) => {
      const address = listeners[listener]!;
      const host = address.host === "0.0.0.0" ? "127.0.0.1" : address.host;
      return `http://${host}:${address.port + offset}`;
    };

    it("stays up, leads, and serves /healthz, /debug/decisions and the dashboard", async () => {
      const lease = await pollUntil(
        "the controller to take the Lease",
        () => {
          if (controller!.hasExited()) throw new Error(`the controller exited:\n${log()}`);
          const got = server.up.cluster.store.get("Lease", NAMESPACE, "horizon-controller");
          return got?.metadata.annotations?.[DEBUG_ADDRESS_ANNOTATION] ? got : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      await pollUntil(
        "the controller's listeners",
        async () => {
          if (controller!.hasExited()) throw new Error(`the controller exited:\n${log()}`);
          try {
            return (await fetch(`${url("metrics")}/healthz`)).ok ? true : undefined;
          } catch {
            return undefined;
          }
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.equal(await (await fetch(`${url("metrics")}/healthz`)).text(), "ok");
      assert.equal((await fetch(`${url("metrics")}/readyz`)).status, 200);
      assert.ok(listeners.debug, "deploy/ serves /debug on a port of its own");
      const decisions = await fetch(`${url("debug")}/debug/decisions`);
      assert.equal(decisions.status, 200);
      assert.equal(
        lease.metadata.annotations?.[DEBUG_ADDRESS_ANNOTATION],
        url("debug"),
        "the Lease advertises deploy/'s debug address",
      );
      // The dashboard answers (its bearer token is a random one here: 401 without it).
      const dashboard = await fetch(`${url("dashboard")}/api/v1/hpas`);
      assert.ok([200, 401].includes(dashboard.status), String(dashboard.status));
      assert.equal(controller!.hasExited(), false, log());
      assert.doesNotMatch(log(), /EADDRINUSE/);
    });
  });
});
