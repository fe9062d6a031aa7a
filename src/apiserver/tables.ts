// Server-side printing: the `meta.k8s.io/v1 Table` kube-apiserver returns when kubectl asks
// for `application/json;as=Table;v=v1;g=meta.k8s.io`. kubectl has no client-side columns for
// these kinds, so the column set, cell types and cell text (AGE, READY, TARGETS, ...) are the
// server's: they follow upstream `pkg/printers/internalversion/printers.go` (v1.34), and AGE
// follows apimachinery `duration.HumanDuration`. Each kind's printer is part of its definition
// (./kinds/); this module builds the Table from it.
import type { KubeObject } from "../api/types.js";
import { col, DOC, hasTime, NAME } from "../kinds/printing.js";
import { kindDefinition } from "../kinds/registry.js";
import type { Printer, TableColumnDefinition, TableRowCondition } from "../kinds/types.js";

export { formatHPAMetrics, humanDuration } from "../kinds/printing.js";
export type { TableColumnDefinition, TableRowCondition } from "../kinds/types.js";

export const TABLE_CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io";

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  object?: unknown;
}

export interface Table {
  kind: "Table";
  apiVersion: "meta.k8s.io/v1";
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export type IncludeObject = "None" | "Object" | "Metadata";

export interface TableOptions {
  /** What each row's `object` carries; upstream's default (no `includeObject`) is Metadata. */
  includeObject?: IncludeObject;
  /** Epoch ms that AGE is measured from (default: Date.now()). */
  now?: number;
  /** The list's metadata; without it a one-object table takes that object's resourceVersion. */
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
}

// ---------------------------------------------------------------------------------------------
// Accept negotiation

/** True when the Accept header asks for a meta.k8s.io/v1 Table (any parameter order). */
export function isTableRequest(accept: string | undefined): boolean {
  if (!accept) return false;
  for (const mediaType of accept.split(",")) {
    const [type, ...rawParams] = mediaType.split(";").map((s) => s.trim());
    if (type !== "application/json") continue;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf("=");
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
    }
    if (
      params.get("as") === "Table" &&
      params.get("g") === "meta.k8s.io" &&
      params.get("v") === "v1"
    )
      return true;
  }
  return false;
}

/** rest.NewDefaultTableConvertor: what kinds without a printer (PodMetrics, ...) get. */
const DEFAULT_PRINTER: Printer = {
  columns: [NAME, col("Created At", "date", DOC.creationTimestamp)],
  // Time.UTC().Format(time.RFC3339); a missing time is Go's zero time.
  cells: (obj) => [
    obj.metadata.name,
    hasTime(obj.metadata.creationTimestamp)
      ? `${new Date(Date.parse(obj.metadata.creationTimestamp as string)).toISOString().slice(0, 19)}Z`
      : "0001-01-01T00:00:00Z",
  ],
};

/** The column definitions served for a kind (the default Name / Created At for others). */
export function columnsFor(kind: string): TableColumnDefinition[] {
  return (kindDefinition(kind)?.printer ?? DEFAULT_PRINTER).columns;
}

// ---------------------------------------------------------------------------------------------
// The Table

function rowObject(obj: KubeObject, include: IncludeObject): unknown {
  switch (include) {
    case "None":
      return undefined;
    case "Object":
      return obj;
    default:
      return {
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: obj.metadata,
      };
  }
}

/**
 * A meta.k8s.io/v1 Table of objects of one kind, with upstream's columns (all of them: kubectl
 * hides priority > 0 unless `-o wide`) and rows carrying the object as `includeObject` asks.
 */
export function toTable(
  kind: string,
  objects: readonly KubeObject[],
  options: TableOptions = {},
): Table {
  const printer = kindDefinition(kind)?.printer ?? DEFAULT_PRINTER;
  const now = options.now ?? Date.now();
  const include = options.includeObject ?? "Metadata";
  const rows: TableRow[] = [];
  for (const obj of objects) {
    const row: TableRow = { cells: printer.cells(obj, now) };
    const conditions = printer.conditions?.(obj);
    if (conditions) row.conditions = conditions;
    const object = rowObject(obj, include);
    if (object !== undefined) row.object = object;
    rows.push(row);
  }
  const metadata: Table["metadata"] = {};
  const listMeta = options.listMeta;
  if (listMeta) {
    if (listMeta.resourceVersion) metadata.resourceVersion = listMeta.resourceVersion;
    if (listMeta.continue) metadata.continue = listMeta.continue;
    if (listMeta.remainingItemCount !== undefined)
      metadata.remainingItemCount = listMeta.remainingItemCount;
  } else if (objects.length === 1 && objects[0]!.metadata.resourceVersion) {
    metadata.resourceVersion = objects[0]!.metadata.resourceVersion;
  }
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    columnDefinitions: printer.columns,
    rows,
  };
}
