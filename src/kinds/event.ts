// core/v1 Event (events.k8s.io is not served).

import type { KubeObject } from "../api/types.js";
import { OBJECT_META } from "./meta.js";
import { asRecord, col, DOC, hasTime, int, since, text } from "./printing.js";
import { deduced, i32, microtime, str, struct, time, zero } from "./schema.js";
import { type KindDefinition, PLAIN_STRATEGY, READ_WRITE } from "./types.js";

const OBJECT_REFERENCE = struct(
  {
    kind: str(),
    namespace: str(),
    name: str(),
    uid: str(),
    apiVersion: str(),
    resourceVersion: str(),
    fieldPath: str(),
  },
  { go: "v1.ObjectReference" },
);

export const event: KindDefinition<"Event"> = {
  kind: "Event",
  resource: "events",
  singular: "event",
  description:
    "An Event reports something that happened to an object (a scaling, a failed metric read), with a reason and a message. Repeats are counted in one Event.",
  group: "",
  versions: [
    {
      version: "v1",
      schema: struct(
        {
          apiVersion: str(),
          kind: str(),
          metadata: OBJECT_META,
          involvedObject: zero(OBJECT_REFERENCE),
          reason: str(),
          message: str(),
          source: zero(struct({ component: str(), host: str() }, { go: "v1.EventSource" })),
          // firstTimestamp/lastTimestamp are Time, eventTime and the series' are MicroTime.
          firstTimestamp: time(),
          lastTimestamp: time(),
          count: i32(),
          type: str(),
          eventTime: microtime(),
          series: deduced(
            struct(
              { count: i32(), lastObservedTime: microtime() },
              { go: "v1.EventSeries", ptr: true },
            ),
          ),
          action: str(),
          related: deduced({ ...OBJECT_REFERENCE, ptr: true }),
          reportingComponent: str(),
          reportingInstance: str(),
        },
        { go: "v1.Event" },
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["ev"],
  gcPolicy: "None",
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
  const kind = text(involved.kind).toLowerCase();
  const target = text(involved.name) ? `${kind}/${text(involved.name)}` : kind;
  const source = asRecord(e.source);
  const component = text(source.component) || text(e.reportingComponent);
  const instance = text(source.host) || text(e.reportingInstance);
  return [
    last,
    text(e.type),
    text(e.reason),
    target,
    text(involved.fieldPath),
    instance ? `${component}, ${instance}` : component,
    text(e.message).trim(),
    first,
    count,
    event.metadata.name,
  ];
}
