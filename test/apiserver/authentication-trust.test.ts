// kube-system/extension-apiserver-authentication on `horizon up`: published as kube-apiserver's
// cluster authentication trust controller does (the front proxy's client CA and headers; no
// client-ca-file, as clients authenticate with tokens), kept with the data directory, made
// again when deleted; so `horizon adapter` starts against `up` over HTTPS without flags.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { AUTHENTICATION_CONFIGMAP } from "../../src/apiserver/authentication-trust.js";
import { adapterCommand } from "../../src/cli/adapter.js";
import { BOOK_ADAPTER_CONFIG } from "../../src/prometheus/adapter-config.js";
import { type RunningUp, startUp } from "../../src/up/up.js";
import { requestUp } from "../e2e/helpers.js";

const PATH = `/api/v1/namespaces/kube-system/configmaps/${AUTHENTICATION_CONFIGMAP}`;

async function up(options: { dataDir?: string; insecureHttp?: boolean } = {}): Promise<RunningUp> {
  const dir = mkdtempSync(join(tmpdir(), "horizon-authtrust-"));
  const started = await startUp({
    port: 0,
    controller: false,
    kubeconfigOut: join(dir, "kubeconfig"),
    ...options,
  });
  if (!started.ok) throw new Error(started.error);
  return started.value;
}

describe("extension-apiserver-authentication", () => {
  it("holds the front proxy's client CA and headers, as kube-apiserver publishes them", async () => {
    const running = await up();
    try {
      const got = await requestUp(running, "GET", PATH);
      assert.equal(got.status, 200, got.body);
      const data = JSON.parse(got.body).data as Record<string, string>;
      assert.deepEqual(Object.keys(data).sort(), [
        "requestheader-allowed-names",
        "requestheader-client-ca-file",
        "requestheader-extra-headers-prefix",
        "requestheader-group-headers",
        "requestheader-username-headers",
      ]);
      assert.match(data["requestheader-client-ca-file"]!, /^-----BEGIN CERTIFICATE-----\n/);
      assert.notEqual(data["requestheader-client-ca-file"], running.caCert);
      assert.equal(data["requestheader-allowed-names"], '["front-proxy-client"]');
      assert.equal(data["requestheader-username-headers"], '["X-Remote-User"]');
      assert.equal(data["requestheader-group-headers"], '["X-Remote-Group"]');
      assert.equal(data["requestheader-extra-headers-prefix"], '["X-Remote-Extra-"]');
      // Deleted: made again, with the same data.
      assert.equal((await requestUp(running, "DELETE", PATH)).status, 200);
      await new Promise((resolve) => setImmediate(resolve));
      const again = await requestUp(running, "GET", PATH);
      assert.equal(again.status, 200, again.body);
      assert.deepEqual(JSON.parse(again.body).data, data);
    } finally {
      await running.close();
    }
  });

  it("keeps its CA in the data directory across restarts", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "horizon-authtrust-")), "data");
    const ca = async () => {
      const running = await up({ dataDir });
      try {
        const got = await requestUp(running, "GET", PATH);
        return JSON.parse(got.body).data["requestheader-client-ca-file"] as string;
      } finally {
        await running.close();
      }
    };
    const first = await ca();
    assert.equal(await ca(), first);
  });

  it("is not published over --insecure-http (no authentication to delegate)", async () => {
    const running = await up({ insecureHttp: true });
    try {
      const res = await fetch(`${running.url}${PATH}`);
      assert.equal(res.status, 404);
    } finally {
      await running.close();
    }
  });

  it("horizon adapter starts against horizon up over HTTPS, trusting that CA", async () => {
    const running = await up();
    const dir = mkdtempSync(join(tmpdir(), "horizon-authtrust-"));
    const config = join(dir, "adapter.yaml");
    writeFileSync(config, BOOK_ADAPTER_CONFIG);
    const lines: string[] = [];
    let serving: (line: string) => void = () => {};
    const started = new Promise<string>((resolve) => {
      serving = resolve;
    });
    try {
      const exit = adapterCommand(
        {
          // Nothing listens there: discovery fails and is retried; the server starts anyway.
          prometheusUrl: "http://127.0.0.1:1",
          config,
          kubeconfig: running.kubeconfigPath!,
          bindAddress: "127.0.0.1",
          securePort: "0",
          metricsRelistInterval: "10m",
        },
        {
          out: (line) => {
            lines.push(line);
            if (line.startsWith("Serving ")) serving(line);
          },
          err: (line) => lines.push(line),
          stopped: started.then(() => undefined),
        },
      );
      const line = await Promise.race([
        started,
        exit.then((code) => `exited ${code}: ${lines.join("\n")}`),
      ]);
      assert.match(
        line,
        /^Serving custom\.metrics\.k8s\.io and external\.metrics\.k8s\.io on https:/,
      );
      assert.equal(await exit, 0, lines.join("\n"));
      assert.ok(
        !lines.some((l) => l.includes("extension-apiserver-authentication")),
        lines.join("\n"),
      );
    } finally {
      await running.close();
    }
  });
});
