// Where every command that talks to an API server (`horizon controller`, `explain`, `load`)
// finds its cluster, in controller-runtime's order (GetConfig): `--kubeconfig FILE`, then
// `KUBECONFIG`, then the in-cluster service account, then ~/.kube/config (then a command's own
// fallback file, for `load` the kubeconfig `horizon up` writes). @kubernetes/client-node's KubeConfig parses the files and works out auth and
// TLS (applyToHTTPSOptions); the transport (client.ts) takes the result as plain TLS material
// and an `authHeaders()` that is asked before every request.
import { readFileSync, statSync } from "node:fs";
import type { Agent } from "node:http";
import type { RequestOptions } from "node:https";
import { isIPv6 } from "node:net";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";

/** The service account folder kubelet mounts into every pod. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** client-go re-reads a rotated service account token about once a minute (cachedFileTokenSource). */
export const TOKEN_REFRESH_MS = 60_000;

export type ConfigSource =
  | "--kubeconfig"
  | "KUBECONFIG"
  | "in-cluster"
  | "~/.kube/config"
  | "fallback";

export interface TlsMaterial {
  ca?: Buffer | string;
  cert?: Buffer | string;
  key?: Buffer | string;
  pfx?: Buffer | string;
  passphrase?: string;
  /** false for `insecure-skip-tls-verify: true`. */
  rejectUnauthorized?: boolean;
  /** `tls-server-name`. */
  servername?: string;
}

export interface KubeConnection {
  /** The API server's base URL, without a trailing slash (may carry a path prefix). */
  server: string;
  source: ConfigSource;
  /** The file(s) or folder the configuration came from. */
  origin: string;
  /** The context's namespace (in-cluster: the pod's), or null. */
  namespace: string | null;
  /** The parsed configuration (for callers that want client-node's typed API too). */
  kubeConfig: KubeConfig;
  tls: TlsMaterial;
  /** A proxy agent (`proxy-url`); the client builds its own keep-alive agent otherwise. */
  proxyAgent?: Agent;
  /** Authorization (and impersonation) headers for the next request. */
  authHeaders(): Promise<Record<string, string>>;
  /**
   * After a 401: drop cached credentials (re-read a rotated token file). True when the next
   * attempt may carry different credentials, so retrying once is worthwhile.
   */
  refreshCredentials(): Promise<boolean>;
}

export interface LoadConfigOptions {
  /** `--kubeconfig FILE`. */
  kubeconfig?: string | null;
  /** The environment (default process.env): KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT. */
  env?: Record<string, string | undefined>;
  /** The service account folder (default /var/run/secrets/kubernetes.io/serviceaccount). */
  serviceAccountDir?: string;
  /** The home directory for ~/.kube/config (default os.homedir()). */
  homeDir?: string;
  /** A kubeconfig used when no other source applies, if it exists (`horizon load`: `horizon up`'s). */
  fallbackKubeconfig?: string;
  /** How often a service account token file is checked for rotation (default 60 s, as client-go). */
  tokenRefreshMs?: number;
  /** The clock for token refresh (tests). */
  now?: () => number;
}

export type ConfigResult = { ok: true; value: KubeConnection } | { ok: false; error: string };

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Loads the connection config from the first source that applies. Errors name the file or variable at fault. */
export async function loadKubeConfig(options: LoadConfigOptions = {}): Promise<ConfigResult> {
  const env = options.env ?? process.env;
  if (options.kubeconfig) {
    const file = options.kubeconfig;
    if (!isFile(file)) return { ok: false, error: `--kubeconfig ${file}: no such file` };
    return fromKubeconfigFiles([file], "--kubeconfig", `--kubeconfig ${file}`);
  }
  const variable = env.KUBECONFIG;
  if (variable !== undefined && variable !== "") {
    // clientcmd skips files of the KUBECONFIG list that do not exist, and merges the rest.
    const files = variable.split(delimiter).filter((file) => file !== "" && isFile(file));
    if (files.length === 0) {
      return { ok: false, error: `KUBECONFIG=${variable}: none of its files exists` };
    }
    return fromKubeconfigFiles(files, "KUBECONFIG", `KUBECONFIG=${variable}`);
  }
  const home = join(options.homeDir ?? homedir(), ".kube", "config");
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (host && port) {
    const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    const inCluster = await fromServiceAccount(host, port, dir, options);
    // controller-runtime falls back to ~/.kube/config when the in-cluster config fails.
    if (inCluster.ok || !isFile(home)) return inCluster;
  }
  if (isFile(home)) return fromKubeconfigFiles([home], "~/.kube/config", home);
  const fallback = options.fallbackKubeconfig;
  if (fallback !== undefined && isFile(fallback))
    return fromKubeconfigFiles([fallback], "fallback", fallback);
  return {
    ok: false,
    error:
      `no cluster configuration: pass --kubeconfig FILE, set KUBECONFIG, run in a pod ` +
      `(KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT set, token in ` +
      `${options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR}), or create ${home}` +
      (fallback !== undefined ? ` or ${fallback}` : ""),
  };
}

async function fromKubeconfigFiles(
  files: string[],
  source: ConfigSource,
  label: string,
): Promise<ConfigResult> {
  // The label names the file already, except for KUBECONFIG's list.
  const where = (file: string) => (label.endsWith(file) ? label : `${label}: ${file}`);
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(files[0]!);
  } catch (error) {
    return { ok: false, error: `${where(files[0]!)}: ${message(error)}` };
  }
  for (const file of files.slice(1)) {
    const more = new KubeConfig();
    try {
      more.loadFromFile(file);
      // clientcmd: the first file to set current-context wins.
      kc.mergeConfig(more, Boolean(kc.getCurrentContext()));
    } catch (error) {
      return { ok: false, error: `${where(file)}: ${message(error)}` };
    }
  }
  return connectionOf(kc, source, files.join(delimiter), label);
}

async function connectionOf(
  kc: KubeConfig,
  source: ConfigSource,
  origin: string,
  label: string,
): Promise<ConfigResult> {
  const contextName = kc.getCurrentContext();
  if (!contextName) return { ok: false, error: `${label}: no current-context is set` };
  const context = kc.getContextObject(contextName);
  if (!context) {
    return { ok: false, error: `${label}: current-context "${contextName}" is not defined` };
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) {
    return {
      ok: false,
      error: `${label}: context "${contextName}" names cluster "${context.cluster}", which is not defined`,
    };
  }
  if (!cluster.server)
    return { ok: false, error: `${label}: cluster "${cluster.name}" has no server` };
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    return {
      ok: false,
      error: `${label}: cluster "${cluster.name}": invalid server "${cluster.server}"`,
    };
  }
  if (server.protocol !== "https:" && server.protocol !== "http:") {
    return {
      ok: false,
      error: `${label}: cluster "${cluster.name}": server must be http(s)://, got "${cluster.server}"`,
    };
  }
  const user = kc.getCurrentUser();
  // Static credentials (token, client certificate, basic auth) are worked out once; exec and
  // auth-provider plugins are asked before every request, as client-node itself does.
  const dynamic = Boolean(user?.exec || user?.authProvider);
  let first: RequestOptions;
  try {
    first = await httpsOptions(kc);
  } catch (error) {
    return { ok: false, error: `${label}: cluster "${cluster.name}": ${message(error)}` };
  }
  const tls: TlsMaterial = {};
  if (first.ca !== undefined) tls.ca = first.ca as Buffer;
  if (first.cert !== undefined) tls.cert = first.cert as Buffer;
  if (first.key !== undefined) tls.key = first.key as Buffer;
  if (first.pfx !== undefined) tls.pfx = first.pfx as Buffer;
  if (first.passphrase !== undefined) tls.passphrase = first.passphrase;
  if (first.rejectUnauthorized !== undefined) tls.rejectUnauthorized = first.rejectUnauthorized;
  if (first.servername !== undefined) tls.servername = first.servername;
  let headers = headersOf(first);
  const connection: KubeConnection = {
    server: cluster.server.replace(/\/+$/, ""),
    source,
    origin,
    namespace: context.namespace ?? null,
    kubeConfig: kc,
    tls,
    async authHeaders() {
      if (dynamic) headers = headersOf(await httpsOptions(kc));
      return headers;
    },
    async refreshCredentials() {
      return dynamic;
    },
  };
  if (cluster.proxyUrl && first.agent) connection.proxyAgent = first.agent as Agent;
  return { ok: true, value: connection };
}

async function httpsOptions(kc: KubeConfig): Promise<RequestOptions> {
  const opts: RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(opts);
  return opts;
}

function headersOf(opts: RequestOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  if (opts.auth) out.Authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
  return out;
}

/**
 * client-go's rest.InClusterConfig: https://KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT,
 * the folder's ca.crt and token (re-read when it rotates), and its namespace file.
 */
async function fromServiceAccount(
  host: string,
  port: string,
  dir: string,
  options: LoadConfigOptions,
): Promise<ConfigResult> {
  const tokenFile = join(dir, "token");
  const caFile = join(dir, "ca.crt");
  const label = `in-cluster config (KUBERNETES_SERVICE_HOST=${host}, KUBERNETES_SERVICE_PORT=${port})`;
  const tokens = new TokenFile(tokenFile, options.tokenRefreshMs ?? TOKEN_REFRESH_MS, options.now);
  const first = tokens.read();
  if (!first.ok) return { ok: false, error: `${label}: ${first.error}` };
  let ca: Buffer;
  try {
    ca = readFileSync(caFile);
  } catch (error) {
    return { ok: false, error: `${label}: cannot read the CA ${caFile}: ${message(error)}` };
  }
  let namespace = "default";
  try {
    const text = readFileSync(join(dir, "namespace"), "utf8").trim();
    if (text !== "") namespace = text;
  } catch {
    // client-go falls back to "default" when the namespace file is missing.
  }
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  // Same shape as client-node's loadFromCluster, over a folder that tests can move: its
  // tokenFile auth provider lets client-node's typed API (explain, load) authenticate too.
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser(
    { name: "inCluster", server, caFile, skipTLSVerify: false },
    { name: "inClusterUser", authProvider: { name: "tokenFile", config: { tokenFile } } },
  );
  const context = kc.getContextObject(kc.getCurrentContext());
  if (context) (context as { namespace?: string }).namespace = namespace;
  return {
    ok: true,
    value: {
      server,
      source: "in-cluster",
      origin: dir,
      namespace,
      kubeConfig: kc,
      tls: { ca },
      async authHeaders(): Promise<Record<string, string>> {
        const token = tokens.current();
        return token === "" ? {} : { Authorization: `Bearer ${token}` };
      },
      async refreshCredentials() {
        return tokens.reload();
      },
    },
  };
}

/**
 * A token file that kubelet rotates (projected service account tokens). Checked at most every
 * `refreshMs` (by modification time and size, re-read when they change), and re-read at once
 * after a 401. A failed re-read keeps the last good token.
 */
export class TokenFile {
  #token = "";
  #checkedAt = Number.NEGATIVE_INFINITY;
  #stamp = "";
  readonly #now: () => number;

  constructor(
    readonly path: string,
    readonly refreshMs: number,
    now: () => number = Date.now,
  ) {
    this.#now = now;
  }

  read(): { ok: true; token: string } | { ok: false; error: string } {
    try {
      const stat = statSync(this.path);
      const token = readFileSync(this.path, "utf8").trim();
      this.#token = token;
      this.#stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
      this.#checkedAt = this.#now();
      return { ok: true, token };
    } catch (error) {
      return {
        ok: false,
        error: `cannot read the service account token ${this.path}: ${message(error)}`,
      };
    }
  }

  current(): string {
    if (this.#now() - this.#checkedAt >= this.refreshMs) {
      this.#checkedAt = this.#now();
      try {
        const stat = statSync(this.path);
        const stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
        if (stamp !== this.#stamp) this.read();
      } catch {
        // Keep the last token: kubelet swaps the file atomically, a miss is transient.
      }
    }
    return this.#token;
  }

  /** Re-reads now; true when the token changed. */
  reload(): boolean {
    const before = this.#token;
    const result = this.read();
    return result.ok && result.token !== before;
  }
}
