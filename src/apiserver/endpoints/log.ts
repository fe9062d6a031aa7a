// GET pods/NAME/log: a container's log as the kubelet serves it through kube-apiserver
// (`kubectl logs [-f] [-c C] [--tail N] [--since D] [--timestamps] [--limit-bytes B]`), from
// the embedded cluster's log book. Text, not JSON; with follow=true a stream of lines until the
// pod goes or the client leaves.
import { isRecord } from "../../api/json.js";
import type { LogLine } from "../../cluster/podlogs.js";
import { badRequest, errorResponse, methodNotAllowed, notFound } from "../errors.js";
import type { ApiResponse } from "../types.js";
import { LineStream } from "../watch.js";
import type { Ctx } from "./context.js";

const TEXT = { "content-type": "text/plain" };

/** A non-negative integer query parameter, absent, or an error naming it. */
function count(ctx: Ctx, name: string): number | undefined | string {
  const raw = ctx.req.query.get(name);
  if (raw === null) return undefined;
  if (!/^-?\d+$/.test(raw)) return `${name}: Invalid value: "${raw}": must be an integer`;
  const value = Number(raw);
  if (value < 0) return `${name}: Invalid value: ${value}: must be greater than or equal to 0`;
  return value;
}

/** RFC 3339 with nanoseconds, as the kubelet prefixes lines with timestamps=true. */
function nanoTime(at: number): string {
  const iso = new Date(at).toISOString(); // 2026-11-24T23:40:00.123Z
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000000Z`;
}

export function podLog(ctx: Ctx, method: string): ApiResponse {
  const name = ctx.target.name!;
  if (method !== "GET") return errorResponse(methodNotAllowed(ctx.info, name));
  const pod = ctx.registry.lookup(ctx, name);
  if (!pod) return errorResponse(notFound(ctx.info, name));
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = (Array.isArray(spec.containers) ? spec.containers : []).map((c) =>
    isRecord(c) && typeof c.name === "string" ? c.name : "",
  );
  // validateContainer: one container needs no name; a wrong name is refused.
  let container = ctx.req.query.get("container") ?? "";
  if (container === "") {
    if (containers.length !== 1) {
      return errorResponse(
        badRequest(
          `a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]`,
        ),
      );
    }
    container = containers[0]!;
  } else if (!containers.includes(container)) {
    return errorResponse(badRequest(`container ${container} is not valid for pod ${name}`));
  }
  const numbers: Record<string, number | undefined> = {};
  for (const param of ["tailLines", "sinceSeconds", "limitBytes"]) {
    const value = count(ctx, param);
    if (typeof value === "string") return errorResponse(badRequest(value));
    numbers[param] = value;
  }
  // Not bound to a node: kube-apiserver has no kubelet to ask and answers nothing.
  if (typeof spec.nodeName !== "string" || spec.nodeName === "") {
    return { status: 200, headers: { ...TEXT }, raw: "" };
  }
  const status = isRecord(pod.status) ? pod.status : {};
  const statuses = Array.isArray(status.containerStatuses) ? status.containerStatuses : [];
  const state = statuses.find((s) => isRecord(s) && s.name === container);
  const waiting = isRecord(state) && isRecord(state.state) ? state.state.waiting : undefined;
  // Waiting, and never ran before (no last termination): no log to read yet.
  const lastState = isRecord(state) && isRecord(state.lastState) ? state.lastState : {};
  if (
    isRecord(waiting) &&
    !isRecord(lastState.terminated) &&
    waiting.reason !== "CrashLoopBackOff"
  ) {
    return errorResponse(
      badRequest(
        `container "${container}" in pod "${name}" is waiting to start: ${String(waiting.reason ?? "ContainerCreating")}`,
      ),
    );
  }
  const podKey = `${pod.metadata.namespace ?? "default"}/${name}`;
  const logs = ctx.registry.cluster.logs;
  const timestamps = ctx.req.query.get("timestamps") === "true";
  const format = (line: LogLine) => `${timestamps ? `${nanoTime(line.at)} ` : ""}${line.text}\n`;
  const since = numbers.sinceSeconds;
  let lines = logs.lines(podKey, container);
  if (since !== undefined) {
    const from = ctx.registry.cluster.now - since * 1000;
    lines = lines.filter((l) => l.at >= from);
  }
  const tail = numbers.tailLines;
  if (tail !== undefined) lines = tail === 0 ? [] : lines.slice(-tail);
  let budget = numbers.limitBytes ?? Number.POSITIVE_INFINITY;
  const limited = (text: string): string => {
    if (budget <= 0) return "";
    const bytes = Buffer.from(text);
    const cut = bytes.length > budget ? bytes.subarray(0, budget).toString() : text;
    budget -= bytes.length;
    return cut;
  };
  const head = limited(lines.map(format).join(""));
  if (ctx.req.query.get("follow") !== "true")
    return { status: 200, headers: { ...TEXT }, raw: head };
  // The watch's bounded line queue: a follower that falls too far behind is cut, as a watcher.
  const stream = new LineStream();
  if (head !== "") stream.push(head);
  const unfollow = logs.follow(podKey, container, (line) => {
    const text = line === null ? "" : limited(format(line));
    if (text !== "") stream.push(text);
    if (line === null || budget <= 0) stream.end();
  });
  stream.onEnd(unfollow);
  return {
    status: 200,
    headers: { ...TEXT },
    stream,
    close: () => stream.end(),
    unresponsive: () => stream.unresponsive,
    onEnd: (fn) => stream.onEnd(fn),
  };
}
