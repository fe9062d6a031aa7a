// The dashboard API from the browser: JSON documents and the event stream, with the session
// cookie the login set (same origin; the page never holds the token).
import type {
  HpaDetail,
  HpaSummary,
  OverviewDocument,
  StreamEvents,
  SyncDetail,
  WhatIfEdits,
  WhatIfResult,
} from "../types.js";

export class Unauthorized extends Error {}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  });
  if (res.status === 401) {
    // The session ended: back to the login form.
    location.assign("/login");
    throw new Unauthorized("not logged in");
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    throw new Error(body.error ?? `${res.status} ${res.statusText}`);
  }
  return (await res.json()) as T;
}

const hpaPath = (namespace: string, name: string) =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/hpas/${encodeURIComponent(name)}`;

/** An answer of the server that is not 2xx, with its field errors (422). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly causes: string[] = [],
  ) {
    super(message);
  }
}

async function postJson<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status === 401) {
    location.assign("/login");
    throw new Unauthorized("not logged in");
  }
  const answer = (await res.json().catch(() => ({}))) as { error?: string; causes?: string[] };
  if (!res.ok) throw new ApiError(answer.error ?? `${res.status} ${res.statusText}`, answer.causes);
  return answer as T;
}

export const api = {
  overview: () => getJson<OverviewDocument>("/api/v1/hpas"),
  detail: (namespace: string, name: string) => getJson<HpaDetail>(hpaPath(namespace, name)),
  sync: (namespace: string, name: string, seq: number) =>
    getJson<SyncDetail>(`${hpaPath(namespace, name)}/syncs/${seq}`),
  whatIf: (namespace: string, name: string, edits: WhatIfEdits) =>
    postJson<WhatIfResult>(`${hpaPath(namespace, name)}/whatif`, edits),
};

export type StreamHandlers = {
  [K in keyof StreamEvents]: (data: StreamEvents[K]) => void;
} & {
  /** The stream (re)connected: what was missed while it was down must be fetched again. */
  open: () => void;
  /** The stream dropped; the browser reconnects by itself. */
  down: () => void;
};

export function openStream(handlers: StreamHandlers): () => void {
  const source = new EventSource("/api/v1/events");
  const on = <K extends keyof StreamEvents>(name: K) => {
    const handler = handlers[name] as (data: StreamEvents[K]) => void;
    source.addEventListener(name, (event) =>
      handler(JSON.parse((event as MessageEvent<string>).data) as StreamEvents[K]),
    );
  };
  on("hpa");
  on("sync");
  on("deleted");
  source.onopen = () => handlers.open();
  source.onerror = () => handlers.down();
  return () => source.close();
}

export function keyOf(hpa: Pick<HpaSummary, "namespace" | "name">): string {
  return `${hpa.namespace}/${hpa.name}`;
}
