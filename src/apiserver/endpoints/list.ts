// LIST: label and field selectors, limit / continue pages, Tables; the selectors' filter is
// shared with watch and deletecollection.

import { isRecord } from "../../api/json.js";
import { parseSelector, type Selector, selectorMatches } from "../../api/selector.js";
import type { KubeObject } from "../../api/types.js";
import { badRequest, errorResponse, expired, tooLargeResourceVersion } from "../errors.js";
import { fieldValue, parseFieldSelector } from "../fieldselectors.js";
import { parseListOptions, waitForResourceVersion } from "../listoptions.js";
import { fail, JSON_HEADERS, ok, presentedBytes, presentItem, type Result } from "../request.js";
import type { ApiResponse } from "../types.js";
import { type Ctx, isTable, table } from "./context.js";

/** The filter of a list or watch: namespace, label and field selectors. */
export function listFilter(ctx: Ctx): Result<(object: KubeObject) => boolean> {
  const labelText = ctx.req.query.get("labelSelector") ?? "";
  let labels: Selector | null = null;
  if (labelText.trim() !== "") {
    const parsed = parseSelector(labelText);
    if (!parsed.ok) return fail(badRequest(`unable to parse requirement: ${parsed.error}`));
    labels = parsed.selector;
  }
  const fields = parseFieldSelector(ctx.info.kind, ctx.req.query.get("fieldSelector") ?? "");
  if (!fields.ok) return fields;
  const namespace = ctx.info.namespaced ? ctx.target.namespace : undefined;
  return ok((object: KubeObject) => {
    if (namespace !== undefined && (object.metadata.namespace ?? "") !== namespace) return false;
    if (labels && !selectorMatches(labels, object.metadata.labels ?? {})) return false;
    return fields.value.every((term) => {
      const actual = fieldValue(object, term.field);
      return term.equal ? actual === term.value : actual !== term.value;
    });
  });
}

const COMMA = Buffer.from(",");
const LIST_END = Buffer.from("]}");

export async function list(ctx: Ctx): Promise<ApiResponse> {
  const options = parseListOptions(ctx.req.query, false);
  if (!options.ok) return errorResponse(options.error);
  const filter = listFilter(ctx);
  if (!filter.ok) return errorResponse(filter.error);
  const store = ctx.registry.cluster.store;
  const requested = options.value.resourceVersion;
  if (requested !== "" && requested !== "0") {
    // A version the store has not reached yet is waited for; Exact serves only the current one
    // (older states are not kept, as after an etcd compaction).
    const wanted = Number(requested);
    if (!(await waitForResourceVersion(store, wanted, ctx.server.resourceVersionWaitMs))) {
      return errorResponse(tooLargeResourceVersion(requested, store.resourceVersion()));
    }
    if (
      options.value.resourceVersionMatch === "Exact" &&
      Number(store.resourceVersion()) !== wanted
    ) {
      return errorResponse(expired("The resourceVersion for the provided list is too old."));
    }
  }
  const rv = store.resourceVersion();
  let items = ctx.registry.objects(ctx).filter(filter.value);
  const continueText = options.value.continue;
  const metadata: Record<string, unknown> = { resourceVersion: rv };
  if (continueText) {
    const start = decodeContinue(continueText);
    if (start === null) {
      return errorResponse(
        badRequest(
          "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
        ),
      );
    }
    items = items.filter((o) => objectKey(o) > start);
  }
  const limit = options.value.limit;
  if (limit > 0 && items.length > limit) {
    const remaining = items.length - limit;
    items = items.slice(0, limit);
    metadata.continue = encodeContinue(rv, objectKey(items[items.length - 1]!));
    // Upstream counts the rest only when no selector filters the list.
    if (!ctx.req.query.get("labelSelector") && !ctx.req.query.get("fieldSelector")) {
      metadata.remainingItemCount = remaining;
    }
  }
  if (isTable(ctx)) return table(ctx, items, metadata);
  return new ListAnswer(ctx, metadata, items);
}

/**
 * A typed list's answer. A class, not an object literal with `get body()`: each literal with
 * its own getter closure left that closure (and the listed objects) reachable from old-space
 * bookkeeping until the next mark-compact, so every LIST promoted the objects it listed
 * (~22 KiB per LIST of the soak's Services, and more mark-compacts).
 */
class ListAnswer {
  readonly status = 200;
  readonly headers = { ...JSON_HEADERS };
  #body: unknown;

  constructor(
    private readonly ctx: Ctx,
    private readonly metadata: Record<string, unknown>,
    private readonly items: readonly KubeObject[],
  ) {}

  /** Made when read: over HTTP only `encode` is. */
  get body(): unknown {
    // Items of a typed list carry no kind/apiVersion of their own.
    this.#body ??= {
      kind: `${this.ctx.info.kind}List`,
      apiVersion: this.ctx.apiVersion,
      metadata: this.metadata,
      items: this.items.map((o) => presentItem(this.ctx, o)),
    };
    return this.#body;
  }

  encode(): Buffer[] {
    const { ctx, metadata, items } = this;
    const head = JSON.stringify({
      kind: `${ctx.info.kind}List`,
      apiVersion: ctx.apiVersion,
      metadata,
    });
    const chunks: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"items":[`)];
    for (const [i, o] of items.entries()) {
      if (i > 0) chunks.push(COMMA);
      chunks.push(presentedBytes(ctx, ctx.server.encodings, o, "item"));
    }
    chunks.push(LIST_END);
    return chunks;
  }
}

function objectKey(object: KubeObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
}

/** Opaque continue token: the list's resourceVersion and the key the next page starts after. */
function encodeContinue(rv: string, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: Number(rv), start })).toString(
    "base64url",
  );
}

function decodeContinue(token: string): string | null {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (isRecord(parsed) && parsed.v === "meta.k8s.io/v1" && typeof parsed.start === "string") {
      return parsed.start;
    }
  } catch {
    // fall through
  }
  return null;
}
