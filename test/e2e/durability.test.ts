// `horizon up --data-dir`: a real server process is killed with SIGKILL in the middle of a
// burst of creates, restarted on the same directory, and must still hold every create it
// acknowledged, with the resourceVersion it answered, while new writes get higher versions.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pollUntil, spawnHorizon } from "./helpers.js";

interface Server {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function spawnUp(args: string[]): Omit<Server, "url"> {
  return spawnHorizon(["up", ...args]);
}

async function startServer(dataDir: string, kubeconfig: string): Promise<Server> {
  const server = spawnUp([
    "--insecure-http",
    "--port",
    "0",
    "--no-controller",
    "--data-dir",
    dataDir,
    "--kubeconfig-out",
    kubeconfig,
  ]);
  let exitCode: number | null | undefined;
  void server.exited.then((code) => {
    exitCode = code;
  });
  const url = await pollUntil(
    "the server's banner",
    () => {
      if (exitCode !== undefined) {
        throw new Error(`horizon up exited (${exitCode}):\n${server.stdout()}\n${server.stderr()}`);
      }
      // The whole banner: the store line comes after the address.
      if (!/^ {2}cluster: .*; store: /m.test(server.stdout())) return undefined;
      return server.stdout().match(/listening on (http:\/\/127\.0\.0\.1:\d+)$/m)?.[1];
    },
    { timeoutMs: 30_000 },
  );
  return { ...server, url };
}

function service(name: string): unknown {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default", labels: { burst: "yes" } },
    spec: { ports: [{ port: 80 }] },
  };
}

interface Stored {
  metadata: { name: string; uid: string; resourceVersion: string };
}

const SERVICES = "/api/v1/namespaces/default/services";

async function create(url: string, name: string): Promise<Stored> {
  const response = await fetch(`${url}${SERVICES}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(service(name)),
  });
  const body = (await response.json()) as Stored;
  assert.equal(response.status, 201, JSON.stringify(body));
  return body;
}

/** Opens a create whose body is cut short; resolves with whatever came back once the connection ends. */
async function halfSentCreate(url: string): Promise<{ ended: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let answer = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => {
    answer += chunk;
  });
  socket.on("error", () => {}); // the kill resets the connection
  const ended = new Promise<string>((resolve) => socket.once("close", () => resolve(answer)));
  socket.write(
    `POST ${SERVICES} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
      `Content-Length: 100000\r\n\r\n{"apiVersion":"v1",`,
  );
  // Wrapped: an async function's returned promise would be awaited in its place.
  return { ended };
}

describe("horizon up --data-dir survives kill -9", () => {
  it("keeps every acknowledged create, with its resourceVersion and uid, across kill -9 and restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "horizon-durability-"));
    const dataDir = join(dir, "data");
    const kubeconfig = join(dir, "kubeconfig");
    const first = await startServer(dataDir, kubeconfig);
    assert.match(first.stdout(), new RegExp(`store: ${dataDir} \\(durable;`));

    // The burst: 8 clients creating services as fast as the server answers.
    const acknowledged = new Map<string, Stored>();
    let next = 0;
    let killed = false;
    const client = async () => {
      while (!killed) {
        const name = `svc-${next++}`;
        try {
          acknowledged.set(name, await create(first.url, name));
        } catch (error) {
          if (!killed) throw error;
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    await pollUntil("150 acknowledged creates", () =>
      acknowledged.size >= 150 ? true : undefined,
    );
    // One create is surely in flight at the kill, however fast the burst is answered: its body
    // is only half sent.
    const halfSent = await halfSentCreate(first.url);
    first.child.kill("SIGKILL");
    killed = true;
    await Promise.all(clients);
    assert.equal(await first.exited, null);
    assert.equal(await halfSent.ended, "", "the half-sent create got no answer");
    // The killed server's lock is stale, not released: the restart must take it over.
    assert.ok(existsSync(join(dataDir, "LOCK")));

    const second = await startServer(dataDir, kubeconfig);
    try {
      const list = (await (await fetch(`${second.url}${SERVICES}`)).json()) as {
        metadata: { resourceVersion: string };
        items: Stored[];
      };
      const restored = new Map(list.items.map((s) => [s.metadata.name, s]));
      const lost: string[] = [];
      let newest = 0;
      for (const [name, stored] of acknowledged) {
        const now = restored.get(name);
        if (!now) {
          lost.push(name);
          continue;
        }
        assert.equal(now.metadata.resourceVersion, stored.metadata.resourceVersion, name);
        assert.equal(now.metadata.uid, stored.metadata.uid, name);
        newest = Math.max(newest, Number(stored.metadata.resourceVersion));
      }
      assert.deepEqual(lost, []);
      assert.ok(Number(list.metadata.resourceVersion) >= newest);

      // A watch from the restarted server's list version resumes and sees the next change.
      const controller = new AbortController();
      const watch = await fetch(
        `${second.url}${SERVICES}?watch=1&resourceVersion=${list.metadata.resourceVersion}`,
        { signal: controller.signal },
      );
      const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
      const created = await create(second.url, "after-restart");
      assert.ok(
        Number(created.metadata.resourceVersion) > Number(list.metadata.resourceVersion),
        `${created.metadata.resourceVersion} after ${list.metadata.resourceVersion}`,
      );
      assert.ok(!acknowledged.has("after-restart"));
      let seen = "";
      await pollUntil(
        "the watch event of the create after the restart",
        async () => {
          const chunk = await reader.read();
          seen += chunk.value ?? "";
          return seen.includes('"after-restart"') ? true : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 0 },
      );
      assert.match(seen, /"type":"ADDED"/);
      controller.abort();
      await reader.cancel().catch(() => {});
    } finally {
      second.child.kill("SIGINT");
    }
    assert.equal(await second.exited, 0);
    // A clean stop compacts into the snapshot and releases the lock.
    assert.equal(existsSync(join(dataDir, "LOCK")), false);
    assert.equal(readFileSync(join(dataDir, "journal.jsonl"), "utf8"), "");
  });

  it("refuses a second server on a directory in use, and --data-dir with --in-memory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "horizon-durability-"));
    const dataDir = join(dir, "data");
    const first = await startServer(dataDir, join(dir, "kubeconfig"));
    try {
      const cases = [
        {
          name: "a second server on the same directory",
          args: ["--data-dir", dataDir],
          exit: 1,
          stderr: new RegExp(
            `^error: data directory ${dataDir} is in use by another horizon \\(pid ${first.child.pid}\\); stop it or use another --data-dir$`,
            "m",
          ),
        },
        {
          name: "--data-dir with --in-memory",
          args: ["--data-dir", dataDir, "--in-memory"],
          exit: 2,
          stderr: /^error: --data-dir and --in-memory cannot be used together$/m,
        },
      ];
      for (const c of cases) {
        const other = spawnUp([
          "--insecure-http",
          "--port",
          "0",
          "--kubeconfig-out",
          join(dir, "other"),
          ...c.args,
        ]);
        assert.equal(await other.exited, c.exit, c.name);
        assert.match(other.stderr(), c.stderr, c.name);
      }
    } finally {
      first.child.kill("SIGINT");
    }
    assert.equal(await first.exited, 0);
  });
});
