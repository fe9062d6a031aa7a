// core/v1 Event (events.k8s.io is not served).

import type { KubeObject } from "../../api/types.js";
import { OBJECT_META, OBJECT_META_TIMES } from "./meta.js";
import { asRecord, col, DOC, hasTime, int, since, str } from "./printing.js";
import {
  DEDUCED,
  type KindDefinition,
  PLAIN_STRATEGY,
  READ_WRITE,
  S,
  scalars,
  struct,
  zero,
} from "./types.js";

export const event: KindDefinition<"Event"> = {
  kind: "Event",
  resource: "events",
  singular: "event",
  group: "",
  versions: [
    {
      version: "v1",
      // More top-level fields than spec/status: not checked (as before the registry).
      knownFields: null,
      apply: struct({
        apiVersion: S,
        kind: S,
        metadata: OBJECT_META,
        involvedObject: zero(
          scalars("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"),
        ),
        reason: S,
        message: S,
        source: zero(scalars("component", "host")),
        firstTimestamp: S,
        lastTimestamp: S,
        count: S,
        type: S,
        eventTime: S,
        series: DEDUCED,
        action: S,
        related: DEDUCED,
        reportingComponent: S,
        reportingInstance: S,
      }),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["ev"],
  gcPolicy: "None",
  // firstTimestamp/lastTimestamp are Time, eventTime and the series' are MicroTime.
  times: {
    metadata: OBJECT_META_TIMES,
    firstTimestamp: "Time",
    lastTimestamp: "Time",
    eventTime: "MicroTime",
    series: { lastObservedTime: "MicroTime" },
  },
  fieldSelectors: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  strategy: PLAIN_STRATEGY,
  printer: {
    columns: [
      col(
        "Last Seen",
        "string",
        "The time at which the most recent occurrence of this event was recorded.",
      ),
      col(
        "Type",
        "string",
        "Type of this event (Normal, Warning), new types could be added in the future",
      ),
      col(
        "Reason",
        "string",
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      col("Object", "string", "The object that this event is about."),
      col(
        "Subobject",
        "string",
        "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
        { priority: 1 },
      ),
      col(
        "Source",
        "string",
        "The component reporting this event. Should be a short machine understandable string.",
        { priority: 1 },
      ),
      col("Message", "string", "A human-readable description of the status of this operation."),
      col(
        "First Seen",
        "string",
        "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
        { priority: 1 },
      ),
      col("Count", "string", "The number of times this event has occurred.", { priority: 1 }),
      col("Name", "string", DOC.name, { format: "name", priority: 1 }),
    ],
    cells: eventCells,
  },
};

function eventCells(event: KubeObject, now: number): unknown[] {
  const e = event as unknown as Record<string, unknown>;
  let first = since(e.firstTimestamp, now);
  if (!hasTime(e.firstTimestamp)) first = since(e.eventTime, now);
  let last = since(e.lastTimestamp, now);
  if (!hasTime(e.lastTimestamp)) last = first;
  let count = int(e.count);
  const series = e.series ? asRecord(e.series) : undefined;
  if (series) {
    last = since(series.lastObservedTime, now);
    count = int(series.count);
  } else if (count === 0) {
    // Singleton events of the events.k8s.io API carry no count.
    count = 1;
  }
  const involved = asRecord(e.involvedObject);
  const kind = str(involved.kind).toLowerCase();
  const target = str(involved.name) ? `${kind}/${str(involved.name)}` : kind;
  const source = asRecord(e.source);
  const component = str(source.component) || str(e.reportingComponent);
  const instance = str(source.host) || str(e.reportingInstance);
  return [
    last,
    str(e.type),
    str(e.reason),
    target,
    str(involved.fieldPath),
    instance ? `${component}, ${instance}` : component,
    str(e.message).trim(),
    first,
    count,
    event.metadata.name,
  ];
}
