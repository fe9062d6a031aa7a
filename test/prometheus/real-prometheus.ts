// A real Prometheus (Debian's 2.42, /usr/bin/prometheus) on known data, for the tests of the
// `prometheus` traffic model and the adapter: series are backfilled with `promtool tsdb
// create-blocks-from openmetrics`, then Prometheus serves them on a free loopback port.
// Without the binaries the tests skip with a printed reason, except under CI=true (.ci/run
// installs them), where their absence fails the run.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const find = (names: string[]) => names.find((path) => existsSync(path));
export const PROMETHEUS_BIN = find(["/usr/bin/prometheus", "/usr/local/bin/prometheus"]);
export const PROMTOOL_BIN = find(["/usr/bin/promtool", "/usr/local/bin/promtool"]);

/** The `skip` option of a describe() that needs Prometheus: false, or the printed reason. */
export function prometheusSkip(name: string): string | false {
  if ((PROMETHEUS_BIN && PROMTOOL_BIN) || process.env.CI === "true") return false;
  const reason =
    "prometheus/promtool are not installed (apt-get install prometheus); skipped outside CI";
  console.log(`# ${name}: ${reason}`);
  return reason;
}

export interface Series {
  name: string;
  labels: Record<string, string>;
  /** [Unix seconds, value], in time order. */
  samples: [number, number][];
}

/** A counter that grows by `rate` per second at each `stepS` from `from` to `to` (Unix s). */
export function counter(
  name: string,
  labels: Record<string, string>,
  from: number,
  to: number,
  rate: number | ((t: number) => number),
  stepS = 15,
): Series {
  const samples: [number, number][] = [];
  let value = 0;
  for (let t = from; t <= to; t += stepS) {
    samples.push([t, value]);
    value += (typeof rate === "number" ? rate : rate(t)) * stepS;
  }
  return { name, labels, samples };
}

/** A gauge holding `value` at each `stepS` from `from` to `to`. */
export function gauge(
  name: string,
  labels: Record<string, string>,
  from: number,
  to: number,
  value: number,
  stepS = 15,
): Series {
  const samples: [number, number][] = [];
  for (let t = from; t <= to; t += stepS) samples.push([t, value]);
  return { name, labels, samples };
}

/** OpenMetrics text of the series (metric families kept together, as the format requires). */
export function openMetrics(series: Series[]): string {
  const byName = new Map<string, Series[]>();
  for (const s of series) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  let out = "";
  for (const [, family] of byName) {
    for (const s of family) {
      const labels = Object.entries(s.labels)
        .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)
        .join(",");
      for (const [t, v] of s.samples) out += `${s.name}{${labels}} ${v} ${t}\n`;
    }
  }
  return `${out}# EOF\n`;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

export interface RunningPrometheus {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Backfills `series` into a fresh TSDB and starts Prometheus on it (config: no scrapes unless
 * `config` is given). Resolves once /-/ready answers. */
export async function startPrometheus(
  options: { series?: Series[]; config?: string } = {},
): Promise<RunningPrometheus> {
  if (!PROMETHEUS_BIN || !PROMTOOL_BIN) {
    throw new Error("CI=true requires Debian's prometheus package (.ci/run installs it)");
  }
  const dir = mkdtempSync(join(tmpdir(), "horizon-prometheus-"));
  const tsdb = join(dir, "tsdb");
  if (options.series && options.series.length > 0) {
    writeFileSync(join(dir, "data.om"), openMetrics(options.series));
    execFileSync(PROMTOOL_BIN, ["tsdb", "create-blocks-from", "openmetrics", "data.om", tsdb], {
      cwd: dir,
      stdio: "pipe",
    });
  }
  const config = join(dir, "prometheus.yml");
  writeFileSync(config, options.config ?? "global: {}\n");
  const port = await freePort();
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${tsdb}`,
      // Backfilled samples are old: keep them.
      "--storage.tsdb.retention.time=100y",
      `--web.listen-address=127.0.0.1:${port}`,
      "--web.enable-lifecycle",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}:\n${log}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { url, child, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 30 s:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
