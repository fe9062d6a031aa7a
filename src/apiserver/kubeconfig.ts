// The kubeconfig `horizon up` writes: one cluster, one user with a bearer token, one context.
// Over plain HTTP it carries `insecure-skip-tls-verify: true`, because @kubernetes/client-node
// 1.x refuses http:// servers without it (kubectl accepts it either way).

import { readFileSync } from "node:fs";
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { parse, stringify } from "yaml";

export interface KubeconfigOptions {
  /** e.g. https://127.0.0.1:6443 */
  server: string;
  /** PEM of the CA that signed the server's certificate (https only). */
  caCert?: string;
  /** Bearer token; absent = an empty user. */
  token?: string;
  /** Skip server certificate verification (always set for http://). */
  insecureSkipTlsVerify?: boolean;
  /** Name of the cluster, user and context (default "horizon"). */
  name?: string;
  /**
   * Where the cluster's controller serves /debug/decisions (`horizon up`'s in-process
   * controller), kept in a cluster extension for `horizon explain --kubeconfig`.
   */
  controllerDebugAddress?: string;
}

/** Where `horizon up` writes its kubeconfig by default (--kubeconfig-out). */
export function defaultKubeconfigPath(home: string = homedir()): string {
  return join(home, ".horizon", "kubeconfig");
}

/**
 * The cluster extension (clientcmd's `extensions`, as minikube's `cluster_info`) naming the
 * controller's /debug address. kubectl keeps and ignores it.
 */
export const CONTROLLER_EXTENSION = "horizon.dev/controller";

/** The kubeconfig document (clientcmd v1 `Config`) as a plain object. */
export function kubeconfigObject(options: KubeconfigOptions): Record<string, unknown> {
  const name = options.name ?? "horizon";
  const cluster: Record<string, unknown> = { server: options.server };
  if (options.caCert !== undefined && !options.insecureSkipTlsVerify) {
    cluster["certificate-authority-data"] = Buffer.from(options.caCert, "utf8").toString("base64");
  }
  if (options.insecureSkipTlsVerify || options.server.startsWith("http://")) {
    cluster["insecure-skip-tls-verify"] = true;
  }
  if (options.controllerDebugAddress !== undefined) {
    cluster.extensions = [
      {
        name: CONTROLLER_EXTENSION,
        extension: { "debug-address": options.controllerDebugAddress },
      },
    ];
  }
  const user: Record<string, unknown> = {};
  if (options.token !== undefined) user.token = options.token;
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: "default" } }],
    "current-context": name,
    preferences: {},
  };
}

export function renderKubeconfig(options: KubeconfigOptions): string {
  // No folding: long base64 values stay on one line.
  return stringify(kubeconfigObject(options), { lineWidth: 0 });
}

/**
 * The controller's /debug address that `horizon up` put in a kubeconfig: the current context's
 * cluster's extension; null when the text is no such kubeconfig.
 */
export function controllerDebugAddressOf(text: string): string | null {
  type Named<T> = { name?: unknown } & T;
  let config: {
    "current-context"?: unknown;
    contexts?: Named<{ context?: { cluster?: unknown } }>[];
    clusters?: Named<{ cluster?: { extensions?: Named<{ extension?: unknown }>[] } }>[];
  };
  try {
    config = parse(text) as typeof config;
  } catch {
    return null;
  }
  if (typeof config !== "object" || config === null) return null;
  const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
  const context = list(config.contexts).find((c) => c?.name === config["current-context"]);
  const clusterName = context?.context?.cluster;
  if (typeof clusterName !== "string") return null;
  const cluster = list(config.clusters).find((c) => c?.name === clusterName)?.cluster;
  const extension = list(cluster?.extensions).find((e) => e?.name === CONTROLLER_EXTENSION);
  const address = (extension?.extension as { "debug-address"?: unknown } | undefined)?.[
    "debug-address"
  ];
  return typeof address === "string" && address !== "" ? address : null;
}

/**
 * Writes a kubeconfig with mode 0600 (it holds a credential): written to a temp file created
 * 0600 and renamed over the target, so the token is never readable by others, even briefly.
 */
export async function writeKubeconfig(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  // The umask cannot widen 0600, but an existing temp file keeps its old mode: set it.
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/**
 * Where `horizon explain` looks without --address or --kubeconfig: the kubeconfig the other commands read (KUBECONFIG's
 * files, else ~/.kube/config), then the one `horizon up` writes (~/.horizon/kubeconfig); the
 * first that names a controller (`export KUBECONFIG=…` as `horizon up` suggests finds it).
 */
export function implicitUpController(
  env: Record<string, string | undefined>,
  home: string,
): { file: string; address: string } | null {
  const variable = env.KUBECONFIG;
  const files =
    variable !== undefined && variable !== ""
      ? variable.split(delimiter).filter((file) => file !== "")
      : [join(home, ".kube", "config")];
  for (const file of [...files, defaultKubeconfigPath(home)]) {
    const address = upControllerAddress(file);
    if (address !== null) return { file, address };
  }
  return null;
}

/** The controller address `horizon up` wrote into a kubeconfig file (null: none, or unreadable). */
export function upControllerAddress(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    // The Lease lookup reports an unreadable kubeconfig.
    return null;
  }
  return controllerDebugAddressOf(text);
}
