// A client-node informer whose process stops reading (SIGSTOP) while a Service changes fast:
// the server drops its watch instead of queueing without bound, and once the process runs again
// the informer sees the watch fail, lists and watches again, and ends with the Service as
// stored.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "../../src/api/types.js";
import { startUp } from "../../src/up/up.js";
import { pollUntil } from "./helpers.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function service(blob: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "big", namespace: "default", annotations: { blob } },
    spec: { ports: [{ port: 80 }] },
  };
}

describe("an informer that stops reading", () => {
  it("is dropped by the server, then lists and watches again and ends up to date", async () => {
    const dir = mkdtempSync(join(tmpdir(), "horizon-watch-drop-"));
    const started = await startUp({
      port: 0,
      insecureHttp: true,
      controller: false,
      kubeconfigOut: join(dir, "kubeconfig"),
    });
    if (!started.ok) throw new Error(started.error);
    const up = started.value;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(root, "test", "e2e", "informer-child.ts"), join(dir, "kubeconfig")],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      err += c;
    });
    const events = () =>
      out
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { event: string; name?: string; resourceVersion?: string });
    try {
      up.cluster.store.create(service("0"));
      // Its watch must be open before it stops: the first add comes from the LIST, and a watch
      // opened only after the flood replays it at the reader's pace (nothing to drop).
      await pollUntil(
        "the informer's first add and its open watch",
        () =>
          (events().some((e) => e.event === "add" && e.name === "big") &&
            events().some((e) => e.event === "started")) ||
          undefined,
        { timeoutMs: 30_000 },
      );
      child.kill("SIGSTOP");
      const blob = "x".repeat(20_000);
      for (let i = 1; i <= 1500; i++) {
        up.cluster.store.update(service(`${i}${blob}`));
        if (i % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      const last = up.cluster.store.update(service("final")).metadata.resourceVersion;
      child.kill("SIGCONT");
      await pollUntil(
        `the informer at resourceVersion ${last}`,
        () => events().some((e) => e.name === "big" && e.resourceVersion === last) || undefined,
        { timeoutMs: 60_000 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${out.slice(-1500)}\n${err.slice(-1500)}`);
      });
      assert.ok(
        events().some((e) => e.event === "error"),
        `the informer's watch was never cut:\n${out.slice(-2000)}\n${err.slice(-2000)}`,
      );
    } finally {
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await up.close();
    }
  });
});
