// core/v1 Event (events.k8s.io is not served).
import { OBJECT_META, OBJECT_META_TIMES } from "./meta.js";
import { DEDUCED, type KindDefinition, READ_WRITE, S, scalars, struct, zero } from "./types.js";

export const event: KindDefinition<"Event"> = {
  kind: "Event",
  resource: "events",
  singular: "event",
  group: "",
  versions: [
    {
      version: "v1",
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
};
