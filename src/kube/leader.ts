// The leader's debug address as `horizon explain --kubeconfig` finds it: the annotation the
// leading `horizon controller` writes on its leader-election Lease.
import { CoordinationV1Api } from "@kubernetes/client-node";
import { DEBUG_ADDRESS_ANNOTATION } from "../controller/server.js";
import { loadKubeConfig } from "./config.js";

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The leader's debug address, from the Lease it holds. */
export async function findLeaderAddress(options: {
  kubeconfig?: string;
  leaseNamespace: string;
  leaseName: string;
}): Promise<Parsed<{ address: string; holder: string }>> {
  const loaded = await loadKubeConfig({ kubeconfig: options.kubeconfig ?? null });
  if (!loaded.ok) return { ok: false, error: `cannot load the kubeconfig: ${loaded.error}` };
  const kc = loaded.value.kubeConfig;
  const lease = `${options.leaseNamespace}/${options.leaseName}`;
  let body: {
    metadata?: { annotations?: Record<string, string> };
    spec?: { holderIdentity?: string };
  };
  try {
    body = await kc
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: options.leaseName, namespace: options.leaseNamespace });
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === 404) {
      return {
        ok: false,
        error: `lease ${lease} not found (is the controller running with --leader-elect? set --lease-namespace/--lease-name, e.g. --lease-namespace horizon-system for deploy/; for \`horizon up\`, give the kubeconfig it wrote, or the --address its banner prints)`,
      };
    }
    return { ok: false, error: `cannot read lease ${lease}: ${(error as Error).message}` };
  }
  const holder = body.spec?.holderIdentity ?? "";
  const address = body.metadata?.annotations?.[DEBUG_ADDRESS_ANNOTATION];
  if (!holder)
    return { ok: false, error: `lease ${lease} has no holder: no controller is leading` };
  if (!address) {
    return {
      ok: false,
      error: `lease ${lease} (held by ${holder}) has no ${DEBUG_ADDRESS_ANNOTATION} annotation: the leader serves no /debug address (see --debug-bind-address)`,
    };
  }
  return { ok: true, value: { address, holder } };
}
