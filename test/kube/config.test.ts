// Connection config: which source wins, the errors that name the file or variable at fault, and
// the in-cluster service account (over real HTTPS against `horizon up`, and token rotation).
import assert from "node:assert/strict";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CoreV1Api } from "@kubernetes/client-node";
import { renderKubeconfig } from "../../src/apiserver/kubeconfig.js";
import { generateServingCertificate } from "../../src/apiserver/tls.js";
import { createKubeClient } from "../../src/kube/client.js";
import { type LoadConfigOptions, loadKubeConfig } from "../../src/kube/config.js";
import { type RunningUp, startUp } from "../../src/up/up.js";
import { tempDir, tinyServer } from "./net-helpers.js";

function kubeconfigFile(dir: string, name: string, server: string, extra = ""): string {
  const path = join(dir, name);
  writeFileSync(path, renderKubeconfig({ server, token: `token-${name}` }) + extra);
  return path;
}

function serviceAccount(dir: string, files: { token?: string; ca?: string; namespace?: string }) {
  mkdirSync(dir, { recursive: true });
  if (files.token !== undefined) writeFileSync(join(dir, "token"), files.token);
  if (files.ca !== undefined) writeFileSync(join(dir, "ca.crt"), files.ca);
  if (files.namespace !== undefined) writeFileSync(join(dir, "namespace"), files.namespace);
  return dir;
}

/** Replaces the token as kubelet does (a new file renamed over the old one). */
function rotateToken(dir: string, token: string): void {
  writeFileSync(join(dir, "token.new"), token);
  renameSync(join(dir, "token.new"), join(dir, "token"));
}

describe("loadKubeConfig: which source", () => {
  const root = tempDir();
  const flagFile = kubeconfigFile(root, "flag", "https://flag.example:6443");
  const envFile = kubeconfigFile(root, "env", "https://env.example:6443");
  const homeDir = join(root, "home");
  mkdirSync(join(homeDir, ".kube"), { recursive: true });
  kubeconfigFile(join(homeDir, ".kube"), "config", "https://home.example:6443");
  const emptyHome = join(root, "empty-home");
  mkdirSync(emptyHome);
  const saDir = serviceAccount(join(root, "sa"), {
    token: "sa-token\n",
    ca: "-----BEGIN CERTIFICATE-----\n",
    namespace: "team-a",
  });
  const noTokenDir = serviceAccount(join(root, "sa-no-token"), { ca: "x" });
  const noCaDir = serviceAccount(join(root, "sa-no-ca"), { token: "t" });
  const inClusterEnv = { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" };
  const badYaml = join(root, "bad");
  writeFileSync(badYaml, "clusters:\n- name: x\n  cluster: {}\ncontexts: []\n");
  const fallbackFile = kubeconfigFile(root, "fallback", "https://fallback.example:6443");
  const noContext = join(root, "no-context");
  writeFileSync(
    noContext,
    renderKubeconfig({ server: "https://x:1" }).replace(
      /current-context: .*/,
      "current-context: nope",
    ),
  );

  const cases: {
    name: string;
    options: LoadConfigOptions;
    expect: { source?: string; server?: string; namespace?: string | null; error?: RegExp };
  }[] = [
    {
      name: "--kubeconfig wins over KUBECONFIG, in-cluster and home",
      options: { kubeconfig: flagFile, env: { KUBECONFIG: envFile, ...inClusterEnv }, homeDir },
      expect: { source: "--kubeconfig", server: "https://flag.example:6443", namespace: "default" },
    },
    {
      name: "a missing --kubeconfig file is an error naming the flag",
      options: { kubeconfig: join(root, "missing"), env: { KUBECONFIG: envFile }, homeDir },
      expect: { error: /^--kubeconfig .*missing: no such file/ },
    },
    {
      name: "KUBECONFIG wins over in-cluster and home; missing files in its list are skipped",
      options: {
        env: { KUBECONFIG: `${join(root, "missing")}:${envFile}`, ...inClusterEnv },
        serviceAccountDir: saDir,
        homeDir,
      },
      expect: { source: "KUBECONFIG", server: "https://env.example:6443" },
    },
    {
      name: "KUBECONFIG naming only missing files is an error naming the variable",
      options: { env: { KUBECONFIG: join(root, "missing") }, homeDir },
      expect: { error: /^KUBECONFIG=.*missing: none of its files exists/ },
    },
    {
      name: "in-cluster when KUBERNETES_SERVICE_HOST/PORT are set, before ~/.kube/config",
      options: { env: inClusterEnv, serviceAccountDir: saDir, homeDir },
      expect: { source: "in-cluster", server: "https://10.0.0.1:443", namespace: "team-a" },
    },
    {
      name: "in-cluster wraps an IPv6 service host in brackets",
      options: {
        env: { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" },
        serviceAccountDir: saDir,
        homeDir: emptyHome,
      },
      expect: { source: "in-cluster", server: "https://[fd00::1]:443" },
    },
    {
      name: "in-cluster without a token file (and no home config) names the token file",
      options: { env: inClusterEnv, serviceAccountDir: noTokenDir, homeDir: emptyHome },
      expect: {
        error: /KUBERNETES_SERVICE_HOST=10\.0\.0\.1.*service account token .*sa-no-token\/token/,
      },
    },
    {
      name: "in-cluster without ca.crt names the CA file",
      options: { env: inClusterEnv, serviceAccountDir: noCaDir, homeDir: emptyHome },
      expect: { error: /cannot read the CA .*sa-no-ca\/ca\.crt/ },
    },
    {
      name: "a broken in-cluster config falls back to ~/.kube/config (as controller-runtime)",
      options: { env: inClusterEnv, serviceAccountDir: noTokenDir, homeDir },
      expect: { source: "~/.kube/config", server: "https://home.example:6443" },
    },
    {
      name: "~/.kube/config when nothing else applies",
      options: { env: {}, homeDir },
      expect: { source: "~/.kube/config", server: "https://home.example:6443" },
    },
    {
      name: "no source at all lists every option",
      options: { env: {}, homeDir: emptyHome },
      expect: { error: /no cluster configuration: pass --kubeconfig FILE, set KUBECONFIG/ },
    },
    {
      name: "a command's fallback kubeconfig only when nothing else applies",
      options: { env: {}, homeDir: emptyHome, fallbackKubeconfig: fallbackFile },
      expect: { source: "fallback", server: "https://fallback.example:6443" },
    },
    {
      name: "~/.kube/config wins over the fallback",
      options: { env: {}, homeDir, fallbackKubeconfig: fallbackFile },
      expect: { source: "~/.kube/config", server: "https://home.example:6443" },
    },
    {
      name: "KUBECONFIG wins over the fallback",
      options: {
        env: { KUBECONFIG: envFile },
        homeDir: emptyHome,
        fallbackKubeconfig: fallbackFile,
      },
      expect: { source: "KUBECONFIG", server: "https://env.example:6443" },
    },
    {
      name: "in-cluster wins over the fallback",
      options: {
        env: inClusterEnv,
        serviceAccountDir: saDir,
        homeDir: emptyHome,
        fallbackKubeconfig: fallbackFile,
      },
      expect: { source: "in-cluster", server: "https://10.0.0.1:443" },
    },
    {
      name: "a missing fallback is named among the options",
      options: { env: {}, homeDir: emptyHome, fallbackKubeconfig: join(root, "no-fallback") },
      expect: { error: /, or create \S+ or \S*no-fallback$/ },
    },
    {
      name: "an invalid kubeconfig names the file and client-node's complaint",
      options: { kubeconfig: badYaml, env: {} },
      expect: { error: /^--kubeconfig \S*bad: clusters\[0\]\.cluster\.server is missing/ },
    },
    {
      name: "an undefined current-context names it",
      options: { kubeconfig: noContext, env: {} },
      expect: { error: /current-context "nope" is not defined/ },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const result = await loadKubeConfig(c.options);
      if (c.expect.error) {
        assert.equal(result.ok, false, "expected an error");
        assert.match((result as { error: string }).error, c.expect.error);
        return;
      }
      assert.ok(result.ok, result.ok ? "" : result.error);
      assert.equal(result.value.source, c.expect.source);
      assert.equal(result.value.server, c.expect.server);
      if (c.expect.namespace !== undefined)
        assert.equal(result.value.namespace, c.expect.namespace);
    });
  }

  it("a static token from a kubeconfig becomes the Authorization header", async () => {
    const result = await loadKubeConfig({ kubeconfig: flagFile, env: {} });
    assert.ok(result.ok);
    assert.deepEqual(await result.value.authHeaders(), { Authorization: "Bearer token-flag" });
    assert.equal(await result.value.refreshCredentials(), false);
  });
});

describe("in-cluster config against horizon up over HTTPS", () => {
  let up: RunningUp;
  before(async () => {
    const started = await startUp({ port: 0, controller: false, kubeconfigOut: null });
    assert.ok(started.ok, started.ok ? "" : started.error);
    up = started.value;
  });
  after(() => up.close());

  it("authenticates with the folder's token and trusts its ca.crt", async () => {
    const dir = serviceAccount(join(tempDir(), "sa"), {
      token: up.token!,
      ca: up.caCert!,
      namespace: "default",
    });
    const loaded = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(up.port) },
      serviceAccountDir: dir,
      homeDir: tempDir(),
    });
    assert.ok(loaded.ok, loaded.ok ? "" : loaded.error);
    const client = createKubeClient(loaded.value);
    try {
      const response = await client.request<{ metadata: { name: string } }>({
        method: "GET",
        path: "/api/v1/namespaces/default",
      });
      assert.equal(response.status, 200);
      assert.equal(response.body.metadata.name, "default");
      rotateToken(dir, "not-the-token");
      // The token was read a moment ago: within the refresh period the old one is still sent.
      const still = await client.request({ method: "GET", path: "/api/v1/namespaces/default" });
      assert.equal(still.status, 200);
    } finally {
      client.close();
    }
  });

  it("its kubeConfig authenticates client-node's typed API too (explain, load)", async () => {
    const dir = serviceAccount(join(tempDir(), "sa"), {
      token: up.token!,
      ca: up.caCert!,
      namespace: "default",
    });
    const loaded = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(up.port) },
      serviceAccountDir: dir,
      homeDir: tempDir(),
    });
    assert.ok(loaded.ok, loaded.ok ? "" : loaded.error);
    const namespace = await loaded.value.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespace({ name: "default" });
    assert.equal(namespace.metadata?.name, "default");
  });

  it("the same config through a kubeconfig file (CA data and token)", async () => {
    const file = join(tempDir(), "kubeconfig");
    writeFileSync(file, up.kubeconfig);
    const loaded = await loadKubeConfig({ kubeconfig: file, env: {} });
    assert.ok(loaded.ok, loaded.ok ? "" : loaded.error);
    const client = createKubeClient(loaded.value);
    try {
      const response = await client.request({ method: "GET", path: "/apis/autoscaling/v2" });
      assert.equal(response.status, 200);
    } finally {
      client.close();
    }
  });
});

describe("service account token rotation", () => {
  let cert: { key: string; cert: string; caCert: string };
  before(async () => {
    const generated = await generateServingCertificate();
    assert.ok(generated.ok, generated.ok ? "" : generated.error);
    cert = generated.value;
  });

  async function rotationServer(accepted: Set<string>) {
    const tokens: string[] = [];
    const server = await tinyServer(
      (req, res) => {
        const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
        tokens.push(token);
        res.writeHead(accepted.has(token) ? 200 : 401, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            accepted.has(token) ? { kind: "APIVersions" } : { kind: "Status", code: 401 },
          ),
        );
      },
      { key: cert.key, cert: cert.cert },
    );
    return { server, tokens };
  }

  it("a changed token file is sent on the next request once the refresh period passed", async () => {
    const { server, tokens } = await rotationServer(new Set(["one", "two"]));
    const dir = serviceAccount(join(tempDir(), "sa"), { token: "one", ca: cert.caCert });
    let now = 0;
    const loaded = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(server.port) },
      serviceAccountDir: dir,
      homeDir: tempDir(),
      tokenRefreshMs: 60_000,
      now: () => now,
    });
    assert.ok(loaded.ok, loaded.ok ? "" : loaded.error);
    const client = createKubeClient(loaded.value);
    try {
      assert.equal((await client.request({ method: "GET", path: "/api" })).status, 200);
      rotateToken(dir, "two");
      now = 30_000;
      assert.equal((await client.request({ method: "GET", path: "/api" })).status, 200);
      now = 61_000;
      assert.equal((await client.request({ method: "GET", path: "/api" })).status, 200);
      assert.deepEqual(tokens, ["one", "one", "two"]);
    } finally {
      client.close();
      await server.close();
    }
  });

  it("a 401 re-reads the token file at once and retries once with the new token", async () => {
    const accepted = new Set(["one"]);
    const { server, tokens } = await rotationServer(accepted);
    const dir = serviceAccount(join(tempDir(), "sa"), { token: "one", ca: cert.caCert });
    const loaded = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(server.port) },
      serviceAccountDir: dir,
      homeDir: tempDir(),
      tokenRefreshMs: 3_600_000,
    });
    assert.ok(loaded.ok, loaded.ok ? "" : loaded.error);
    const client = createKubeClient(loaded.value);
    try {
      assert.equal((await client.request({ method: "GET", path: "/api" })).status, 200);
      accepted.clear();
      accepted.add("two");
      rotateToken(dir, "two");
      assert.equal((await client.request({ method: "GET", path: "/api" })).status, 200);
      // An unchanged token after a 401: no second retry, the 401 is the answer.
      accepted.clear();
      assert.equal((await client.request({ method: "GET", path: "/api" })).status, 401);
      assert.deepEqual(tokens, ["one", "one", "two", "two"]);
    } finally {
      client.close();
      await server.close();
    }
  });
});
