// pods/NAME/exec, /attach and /portforward: kube-apiserver hands these streams (a WebSocket or
// SPDY upgrade) to the kubelet and the container runtime. Horizon's containers are models, not
// processes: there is nothing to run a command in, attach to or forward from, so every method
// is answered with a Status that says so (kubectl prints its message).
import { isRecord } from "../../api/json.js";
import { errorResponse, notFound, notSupported } from "../errors.js";
import type { ApiResponse } from "../types.js";
import type { Ctx } from "./context.js";

export const STREAMING_SUBRESOURCES: ReadonlySet<string> = new Set([
  "exec",
  "attach",
  "portforward",
]);

export function podStream(ctx: Ctx): ApiResponse {
  const name = ctx.target.name!;
  const subresource = ctx.target.subresource!;
  const pod = ctx.registry.lookup(ctx, name);
  if (!pod) return errorResponse(notFound(ctx.info, name));
  const what = subresource === "portforward" ? "port-forward" : subresource;
  let message = `pods "${name}": ${what} is not supported by horizon up: its containers are models, not processes`;
  if (subresource === "portforward") {
    const podIP = isRecord(pod.status) ? pod.status.podIP : undefined;
    message +=
      typeof podIP === "string" && podIP !== ""
        ? `; their ports listen on the pod's IP ${podIP} (and a Service's on its ClusterIP), reachable from this machine`
        : "; once Running, their ports listen on the pod's IP (and a Service's on its ClusterIP), reachable from this machine";
  }
  return errorResponse(notSupported(message, { name, kind: "pods" }));
}
