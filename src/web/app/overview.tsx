// The overview: every HPA in one table (namespace filter, search), with replicas, the metrics as
// `kubectl get hpa` prints them, the conditions as coloured states (src/web/conditions.ts) and
// the last hour's sparkline. Rows re-render only when their HPA changed, so live updates and filtering stay
// cheap at 1,000 HPAs.
import { Component } from "preact";
import { useMemo } from "preact/hooks";
import type { HorizontalPodAutoscalerCondition } from "../../api/types.js";
import { conditionChips } from "../conditions.js";
import type { HpaSummary } from "../types.js";
import { keyOf } from "./api.js";
import { Sparkline } from "./charts.js";
import { Link } from "./router.js";
import { ago } from "./time.js";

export function ConditionChips({ conditions }: { conditions: HorizontalPodAutoscalerCondition[] }) {
  return (
    <span class="chips">
      {conditionChips(conditions).map((c) => (
        <span key={c.type} class={`chip ${c.state}`} title={c.words} data-condition={c.type}>
          {c.short}
          <span class="sr">: {c.words}</span>
        </span>
      ))}
    </span>
  );
}

interface RowProps {
  row: HpaSummary;
  now: number;
  /** Filtered out: kept in the DOM, hidden, so clearing a filter re-mounts nothing. */
  hidden: boolean;
}

class Row extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    // `now` moves every few seconds; only rows with a scale time show it.
    return (
      next.row !== this.props.row ||
      next.hidden !== this.props.hidden ||
      (next.row.lastScaleTime !== null && next.now !== this.props.now && !next.hidden)
    );
  }

  override render({ row, now, hidden }: RowProps) {
    const replicas =
      row.currentReplicas === null
        ? "–"
        : row.desiredReplicas !== null && row.desiredReplicas !== row.currentReplicas
          ? `${row.currentReplicas} → ${row.desiredReplicas}`
          : String(row.currentReplicas);
    return (
      <tr data-key={keyOf(row)} hidden={hidden}>
        <td class="name">
          <Link href={`/hpas/${encodeURIComponent(row.namespace)}/${encodeURIComponent(row.name)}`}>
            {row.name}
          </Link>
          <div class="muted small">{row.namespace}</div>
        </td>
        <td class="clip" title={row.reference}>
          {row.reference}
        </td>
        <td class="clip targets" title={row.targets}>
          {row.targets}
        </td>
        <td class="num">
          {row.minReplicas}–{row.maxReplicas}
        </td>
        <td class="num replicas">{replicas}</td>
        <td>
          <ConditionChips conditions={row.conditions} />
        </td>
        <td class="small">
          {row.lastScaleTime ? ago(Date.parse(row.lastScaleTime), now) : "never"}
        </td>
        <td>
          <Sparkline
            values={row.sparkline}
            label={`desired replicas over the last hour: ${row.sparkline.join(", ")}`}
          />
        </td>
      </tr>
    );
  }
}

export interface OverviewProps {
  rows: HpaSummary[];
  now: number;
  namespace: string;
  search: string;
  onNamespace: (namespace: string) => void;
  onSearch: (search: string) => void;
}

export function matches(row: HpaSummary, namespace: string, search: string): boolean {
  if (namespace !== "" && row.namespace !== namespace) return false;
  if (search === "") return true;
  const needle = search.toLowerCase();
  return (
    row.name.toLowerCase().includes(needle) ||
    row.namespace.toLowerCase().includes(needle) ||
    row.reference.toLowerCase().includes(needle)
  );
}

export function Overview(props: OverviewProps) {
  const namespaces = useMemo(
    () => [...new Set(props.rows.map((r) => r.namespace))].sort(),
    [props.rows],
  );
  const shown = useMemo(() => {
    const search = props.search.trim();
    return new Set(props.rows.filter((row) => matches(row, props.namespace, search)));
  }, [props.rows, props.namespace, props.search]);
  return (
    <section aria-labelledby="overview-title">
      <div class="toolbar">
        <h2 id="overview-title">HorizontalPodAutoscalers</h2>
        <label>
          Namespace{" "}
          <select
            value={props.namespace}
            onChange={(e) => props.onNamespace(e.currentTarget.value)}
          >
            <option value="">all</option>
            {namespaces.map((ns) => (
              <option key={ns} value={ns}>
                {ns}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search{" "}
          <input
            id="search"
            type="search"
            value={props.search}
            placeholder="name, namespace or target  (press /)"
            onInput={(e) => props.onSearch(e.currentTarget.value)}
          />
        </label>
        <output class="muted" aria-live="polite" id="shown-count">
          {shown.size} of {props.rows.length}
        </output>
      </div>
      {props.rows.length === 0 ? (
        <p>No HPAs yet. Create one (kubectl autoscale, or kubectl apply) and it appears here.</p>
      ) : (
        <table class="hpas">
          <thead>
            <tr>
              <th scope="col" class="name">
                Name
              </th>
              <th scope="col">Reference</th>
              <th scope="col">Targets</th>
              <th scope="col" class="num">
                Min–max
              </th>
              <th scope="col" class="num">
                Replicas
              </th>
              <th scope="col">Conditions</th>
              <th scope="col">Last scale</th>
              <th scope="col">Last hour</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <Row key={keyOf(row)} row={row} now={props.now} hidden={!shown.has(row)} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
