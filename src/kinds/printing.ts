// Server-side printing shared by the kinds' printers: column definitions and the cell
// formatting of upstream `pkg/printers/internalversion/printers.go` (v1.34); AGE follows
// apimachinery `duration.HumanDuration`.
import { Quantity } from "../api/quantity.js";
import { selectorFromLabelSelector } from "../api/selector.js";
import type { LabelSelector, MetricSpec, MetricStatus } from "../api/types.js";
import type { TableColumnDefinition } from "./types.js";

// ---------------------------------------------------------------------------------------------
// Cell formatting shared by the printers

/** apimachinery duration.HumanDuration: `45s`, `5m12s`, `3h`, `2d`, ... (ms in). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    const years = Math.floor(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** translateTimestampSince: `<unknown>` for a missing (zero) time. */
export function since(timestamp: unknown, now: number): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}

export function hasTime(timestamp: unknown): boolean {
  return typeof timestamp === "string" && timestamp !== "" && !Number.isNaN(Date.parse(timestamp));
}

/** Quantity.String() of a serialized quantity; a nil *Quantity prints `<nil>` in Go. */
export function quantityText(value: unknown): string {
  if (value === undefined || value === null) return "<nil>";
  const parsed = Quantity.tryParse(value);
  return parsed.ok ? parsed.quantity.toString() : String(value);
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return "<none>";
  return keys.map((k) => `${k}=${labels![k]}`).join(",");
}

/** metav1.LabelSelectorAsSelector(...).String(); undefined when the selector is invalid. */
export function selectorString(selector: LabelSelector | null | undefined): string | undefined {
  const parsed = selectorFromLabelSelector(selector);
  return parsed.ok ? parsed.selector.text : undefined;
}

/** layoutContainerCells: container names and images, comma-joined. */
export function containerCells(template: unknown): [string, string] {
  const containers = (asRecord(asRecord(template).spec).containers ?? []) as Record<
    string,
    unknown
  >[];
  return [
    containers.map((c) => String(c.name ?? "")).join(","),
    containers.map((c) => String(c.image ?? "")).join(","),
  ];
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

export function int(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : 0;
}

export function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

// ---------------------------------------------------------------------------------------------
// HPA TARGETS

/**
 * formatHPAMetrics (v1.30+ wording, kubernetes#122804): each spec metric paired with the status
 * entry at the same index; Resource/ContainerResource prefixed with the resource name; `(avg)`
 * for AverageValue targets of Object/External; the first two, then `+ N more...`.
 */
export function formatHPAMetrics(
  specs: readonly MetricSpec[] | null | undefined,
  statuses: readonly MetricStatus[] | null | undefined,
): string {
  if (!specs || specs.length === 0) return "<none>";
  const status = (i: number): MetricStatus | undefined => statuses?.[i];
  const list: string[] = [];
  for (const [i, spec] of specs.entries()) {
    switch (spec.type) {
      case "External": {
        const target = spec.external?.target;
        const current = status(i)?.external?.current;
        if (target?.averageValue !== undefined && target.averageValue !== null) {
          const now =
            current?.averageValue !== undefined ? quantityText(current.averageValue) : "<unknown>";
          list.push(`${now}/${quantityText(target.averageValue)} (avg)`);
        } else {
          const now = current ? quantityText(current.value) : "<unknown>";
          list.push(`${now}/${quantityText(target?.value)}`);
        }
        break;
      }
      case "Pods": {
        const current = status(i)?.pods?.current;
        const now = current ? quantityText(current.averageValue) : "<unknown>";
        list.push(`${now}/${quantityText(spec.pods?.target.averageValue)}`);
        break;
      }
      case "Object": {
        const target = spec.object?.target;
        const current = status(i)?.object?.current;
        if (target?.averageValue !== undefined && target.averageValue !== null) {
          const now =
            current?.averageValue !== undefined ? quantityText(current.averageValue) : "<unknown>";
          list.push(`${now}/${quantityText(target.averageValue)} (avg)`);
        } else {
          const now = current ? quantityText(current.value) : "<unknown>";
          list.push(`${now}/${quantityText(target?.value)}`);
        }
        break;
      }
      case "Resource":
      case "ContainerResource": {
        const source = spec.type === "Resource" ? spec.resource : spec.containerResource;
        const current =
          spec.type === "Resource"
            ? status(i)?.resource?.current
            : status(i)?.containerResource?.current;
        const name = source?.name ?? "";
        const target = source?.target;
        if (target?.averageValue !== undefined && target.averageValue !== null) {
          const now = current ? quantityText(current.averageValue) : "<unknown>";
          list.push(`${name}: ${now}/${quantityText(target.averageValue)}`);
        } else {
          const now =
            current?.averageUtilization !== undefined && current.averageUtilization !== null
              ? `${current.averageUtilization}%`
              : "<unknown>";
          const goal =
            target?.averageUtilization !== undefined && target.averageUtilization !== null
              ? `${target.averageUtilization}%`
              : "<auto>";
          list.push(`${name}: ${now}/${goal}`);
        }
        break;
      }
      default:
        list.push("<unknown type>");
    }
  }
  const maximum = 2;
  if (list.length > maximum) {
    return `${list.slice(0, maximum).join(", ")} + ${list.length - maximum} more...`;
  }
  return list.join(", ");
}

// ---------------------------------------------------------------------------------------------
// Column definitions (names, types, formats, priorities as upstream registers them)

export const DOC = {
  name: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
  creationTimestamp:
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  containers: "Names of each container in the template.",
  images: "Images referenced by each container in the template.",
};

export function col(
  name: string,
  type: string,
  description: string,
  options: { format?: string; priority?: number } = {},
): TableColumnDefinition {
  return {
    name,
    type,
    format: options.format ?? "",
    description,
    priority: options.priority ?? 0,
  };
}

export const NAME = col("Name", "string", DOC.name, { format: "name" });
export const AGE = col("Age", "string", DOC.creationTimestamp);
export const CONTAINERS = col("Containers", "string", DOC.containers, { priority: 1 });
export const IMAGES = col("Images", "string", DOC.images, { priority: 1 });
