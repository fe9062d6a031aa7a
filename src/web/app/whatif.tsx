// What if: edit the HPA's min/max or behavior, run the simulation again through the same core,
// and see both trajectories on one chart, their pod-hours, unmet demand and flaps side by side,
// and the merge patch that makes the change for real.
import { useState } from "preact/hooks";
import type { HpaDetail, RunMeasures, Trajectory, WhatIfEdits, WhatIfResult } from "../types.js";
import { ApiError, api } from "./api.js";
import { TimeChart } from "./charts.js";
import { aligned, plottedDesired } from "./series.js";

const fixed = (n: number, digits = 1) => (Number.isInteger(n) ? String(n) : n.toFixed(digits));

const ROWS: { label: string; value: (m: RunMeasures) => string; lowerIsBetter: boolean }[] = [
  { label: "Pod-hours", value: (m) => fixed(m.podHours, 2), lowerIsBetter: true },
  {
    label: "Unmet demand (pod-seconds)",
    value: (m) => fixed(m.unmetDemandPodSeconds),
    lowerIsBetter: true,
  },
  {
    label: "Unmet demand (seconds)",
    value: (m) => fixed(m.unmetDemandSeconds),
    lowerIsBetter: true,
  },
  { label: "Flaps", value: (m) => String(m.flaps), lowerIsBetter: true },
  { label: "Scale-ups", value: (m) => String(m.scaleUps), lowerIsBetter: true },
  { label: "Scale-downs", value: (m) => String(m.scaleDowns), lowerIsBetter: true },
];

const LOOP_TEXT = {
  open: "Open loop: each sync's demand is held as recorded, whatever the replicas (pod readiness and the system's response are not modelled).",
  closed:
    "Closed loop for CPU utilization: at each sync's recorded load, the cluster model's pods are as busy as the replicas the replay reached make them; other metrics' demand is held as recorded (pod readiness is not modelled).",
};

/** Measures of two or more runs, one column each. */
export function MeasuresTable({ runs }: { runs: Trajectory[] }) {
  if (runs.every((r) => r.measures === null)) return null;
  return (
    <table class="measures">
      <thead>
        <tr>
          <th scope="col">Measure</th>
          {runs.map((r) => (
            <th scope="col" class="num" key={r.label}>
              {r.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {ROWS.map((row) => (
          <tr key={row.label} data-measure={row.label}>
            <th scope="row">{row.label}</th>
            {runs.map((r) => (
              <td class="num" key={r.label}>
                {r.measures ? row.value(r.measures) : "–"}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Desired replicas of several runs on one chart. */
export function TrajectoryChart({ runs, title }: { runs: Trajectory[]; title: string }) {
  const data = aligned(
    runs.map((r) => r.samples),
    plottedDesired,
  );
  const colors = ["--c-current", "--c-desired", "--c-target"];
  const last = runs.map(
    (r) => `${r.label}: ${r.samples[r.samples.length - 1]?.desiredReplicas ?? "–"}`,
  );
  return (
    <TimeChart
      title={title}
      data={data}
      series={runs.map((r, i) => ({
        label: r.label,
        color: colors[i % colors.length]!,
        stepped: true,
        ...(i > 0 ? { dash: true } : {}),
      }))}
      summary={`desired replicas at the end: ${last.join(", ")}`}
    />
  );
}

export function WhatIfPanel({ detail }: { detail: HpaDetail }) {
  const spec = detail.hpa?.spec;
  const [min, setMin] = useState(String(spec?.minReplicas ?? detail.summary.minReplicas));
  const [max, setMax] = useState(String(spec?.maxReplicas ?? detail.summary.maxReplicas));
  const [behavior, setBehavior] = useState(JSON.stringify(spec?.behavior ?? {}, null, 2));
  const [result, setResult] = useState<WhatIfResult | null>(null);
  const [error, setError] = useState<{ message: string; causes: string[] } | null>(null);
  const [running, setRunning] = useState(false);
  const [copied, setCopied] = useState(false);

  const run = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const edits: WhatIfEdits = {};
    if (Number(min) !== (spec?.minReplicas ?? detail.summary.minReplicas))
      edits.minReplicas = Number(min);
    if (Number(max) !== (spec?.maxReplicas ?? detail.summary.maxReplicas))
      edits.maxReplicas = Number(max);
    let parsed: unknown;
    try {
      parsed = JSON.parse(behavior);
    } catch (err) {
      setError({ message: `behavior: not JSON: ${(err as Error).message}`, causes: [] });
      return;
    }
    if (JSON.stringify(parsed) !== JSON.stringify(spec?.behavior ?? {})) {
      edits.behavior = parsed as WhatIfEdits["behavior"];
    }
    if (Object.keys(edits).length === 0) {
      setError({ message: "Change min, max or the behavior first.", causes: [] });
      return;
    }
    setRunning(true);
    try {
      setResult(await api.whatIf(detail.summary.namespace, detail.summary.name, edits));
      setCopied(false);
    } catch (err) {
      setError({
        message: (err as Error).message,
        causes: err instanceof ApiError ? err.causes : [],
      });
    } finally {
      setRunning(false);
    }
  };

  return (
    <section class="whatif" aria-labelledby="whatif-title">
      <h3 id="whatif-title">What if</h3>
      <p class="muted small">
        {detail.whatIf === "simulation"
          ? "Edit the HPA and run the simulation again: same traffic, same cluster model, same core."
          : "Edit the HPA and replay the last hour's recorded syncs through the same core."}
      </p>
      <form onSubmit={run}>
        <div class="whatif-fields">
          <label>
            minReplicas{" "}
            <input
              id="whatif-min"
              type="number"
              min="0"
              value={min}
              onInput={(e) => setMin(e.currentTarget.value)}
            />
          </label>
          <label>
            maxReplicas{" "}
            <input
              id="whatif-max"
              type="number"
              min="1"
              value={max}
              onInput={(e) => setMax(e.currentTarget.value)}
            />
          </label>
        </div>
        <label for="whatif-behavior">
          behavior (JSON, as in spec.behavior; tolerance is behavior.scaleUp/scaleDown.tolerance)
        </label>
        <textarea
          id="whatif-behavior"
          rows={8}
          spellcheck={false}
          value={behavior}
          onInput={(e) => setBehavior(e.currentTarget.value)}
        />
        <button type="submit" id="whatif-run" disabled={running}>
          {running ? "Running…" : "Run what-if"}
        </button>
      </form>
      {error && (
        <div class="bad" role="alert">
          <p>{error.message}</p>
          {error.causes.length > 0 && (
            <ul>
              {error.causes.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {result && (
        <div class="whatif-result" aria-live="polite">
          {result.loop !== "simulation" && (
            <p class="muted small" id="whatif-loop">
              {LOOP_TEXT[result.loop]}
            </p>
          )}
          <TrajectoryChart
            runs={[result.original, result.whatIf]}
            title="Desired replicas: original and what-if"
          />
          <MeasuresTable runs={[result.original, result.whatIf]} />
          <h4>Patch</h4>
          <pre id="whatif-command">{result.command}</pre>
          <button
            type="button"
            onClick={() =>
              navigator.clipboard.writeText(result.command).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            {copied ? "Copied" : "Copy command"}
          </button>
          <pre id="whatif-patch">{result.patch}</pre>
        </div>
      )}
    </section>
  );
}
