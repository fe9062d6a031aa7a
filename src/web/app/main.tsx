// The dashboard's page: the overview and one HPA's view, kept live by the event stream. Stream
// events update a plain map; the page re-renders at most once per animation frame. The same
// bundle renders a static report when the page carries one.
import "uplot/dist/uPlot.min.css";
import "./style.css";
import { render } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ReportDocument } from "../../sim/report.js";
import type { HpaSummary, StreamEvents } from "../types.js";
import { api, keyOf, openStream } from "./api.js";
import { RunStart } from "./charts.js";
import { HpaView } from "./hpa.js";
import { Overview } from "./overview.js";
import { ReportPage } from "./report.js";
import { Link, useRoute } from "./router.js";

type SyncListener = (data: StreamEvents["sync"]) => void;

function App() {
  const route = useRoute();
  const rows = useRef(new Map<string, HpaSummary>());
  const syncListeners = useRef(new Map<string, Set<SyncListener>>());
  const [version, setVersion] = useState(0);
  const [source, setSource] = useState("");
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  /** A simulation's end, which times are read against; null: live. */
  const [clock, setClock] = useState<number | null>(null);
  /** A simulation's start, which its times are offsets from; null: live. */
  const [start, setStart] = useState<number | null>(null);
  const [namespace, setNamespace] = useState("");
  const [search, setSearch] = useState("");

  useEffect(() => {
    let frame = 0;
    const changed = () => {
      if (frame === 0) {
        frame = requestAnimationFrame(() => {
          frame = 0;
          setVersion((v) => v + 1);
        });
      }
    };
    const reload = () =>
      api.overview().then(
        (doc) => {
          rows.current = new Map(doc.hpas.map((row) => [keyOf(row), row]));
          setSource(doc.source);
          setClock(doc.clock);
          setStart(doc.start);
          setError(null);
          changed();
        },
        (e: Error) => setError(e.message),
      );
    const close = openStream({
      open: () => {
        setConnected(true);
        // Whatever changed while the stream was down.
        void reload();
      },
      down: () => setConnected(false),
      hpa: (row) => {
        rows.current.set(keyOf(row), row);
        changed();
      },
      deleted: ({ key }) => {
        rows.current.delete(key);
        changed();
      },
      sync: (data) => {
        for (const listener of syncListeners.current.get(data.key) ?? []) listener(data);
      },
    });
    const tick = setInterval(() => setNow(Date.now()), 5000);
    return () => {
      close();
      clearInterval(tick);
      cancelAnimationFrame(frame);
    };
  }, []);

  // "/" jumps to the search box, as on many sites; Escape leaves it.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      const typing =
        target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA";
      if (e.key === "/" && !typing) {
        const box = document.getElementById("search");
        if (box) {
          e.preventDefault();
          box.focus();
        }
      } else if (e.key === "Escape" && typing) target.blur();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  const list = useMemo(
    () =>
      [...rows.current.values()].sort((a, b) =>
        keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0,
      ),
    [version],
  );
  const onSync = (key: string, listener: SyncListener) => {
    let set = syncListeners.current.get(key);
    if (!set) {
      set = new Set();
      syncListeners.current.set(key, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  };

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <h1>
          <Link href="/">Horizon</Link>
        </h1>
        <span class="muted">{source}</span>
        <span class={`live ${connected ? "ok" : "warn"}`} role="status">
          {connected ? "live" : "reconnecting…"}
        </span>
        <form method="post" action="/logout">
          <button type="submit">Log out</button>
        </form>
      </header>
      <main id="main">
        <RunStart.Provider value={start}>
          {error && <p class="bad">{error}</p>}
          {route.view === "overview" ? (
            <Overview
              rows={list}
              now={clock ?? now}
              namespace={namespace}
              search={search}
              onNamespace={setNamespace}
              onSearch={setSearch}
            />
          ) : (
            <HpaView
              namespace={route.namespace}
              name={route.name}
              now={clock ?? now}
              onSync={onSync}
              summary={rows.current.get(`${route.namespace}/${route.name}`)}
            />
          )}
        </RunStart.Provider>
      </main>
    </>
  );
}

// A static report (`horizon simulate --report`) carries its document in the page: no server.
const report = document.getElementById("horizon-report");
render(
  report ? <ReportPage doc={JSON.parse(report.textContent ?? "{}") as ReportDocument} /> : <App />,
  document.getElementById("app")!,
);
