// `horizon simulate`: run a scenario in virtual time and print what the HPA did and why.
// Exit codes: 0 done (every --assert held), 1 an --assert failed (or the report could not be
// written: the dashboard bundle is not built, or the write failed), 2 bad input.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { formatDuration, parseDuration } from "../api/duration.js";
import { readKubernetesVersionFlag } from "../api/kubernetes-version-flag.js";
import { parseKubernetesVersion } from "../api/versions.js";
import { parseBindAddress } from "../controller-manager/options.js";
import { type Assertion, checkAssertions, parseAssertion } from "../sim/assertions.js";
import { type DemandYardstick, scenarioYardsticks } from "../sim/demand.js";
import { CsvWriter, formatComparison, formatSummaryTable, JsonLinesWriter } from "../sim/output.js";
import { RangeQueries } from "../sim/prometheus-traffic.js";
import { ReportBuilder } from "../sim/report.js";
import { type RunResult, runSimulation } from "../sim/runner.js";
import {
  formatScenarioError,
  loadScenarioFile,
  resolveScenario,
  type ScenarioResult,
} from "../sim/scenario.js";
import type { Scenario } from "../sim/scenario-types.js";
import type { SimulationRecord } from "../sim/timeline.js";
import { reportHtml } from "../web/report.js";
import { DashboardAuth, type RunningDashboard, startDashboardServer } from "../web/server.js";
import { type RecordedRun, RunRecorder, simulationData } from "../web/simulation.js";
import { ioErrorText, outputFileProblem, writeOutputFile } from "./files.js";

export interface SimulateOptions {
  duration?: string;
  seed?: string;
  set: string[];
  compare?: string;
  compareSet: string[];
  output: string;
  report?: string;
  assert: string[];
  quiet?: boolean;
  fromPrometheus?: string;
  /** `--serve [host:port]`: true without a value. */
  serve?: string | boolean;
  /** `--kubernetes-version`: wins over the scenario's `spec.kubernetesVersion`. */
  kubernetesVersion?: string;
}

export interface SimulateIO {
  /** Standard output; a returned promise is awaited (backpressure). */
  out: (chunk: string) => undefined | Promise<void>;
  err: (line: string) => void;
  /** Whether stderr is a terminal (progress bar vs. occasional progress lines). */
  interactive: boolean;
  /**
   * With --serve: told the dashboard's address once it listens, with a function that stops it
   * (tests); the command otherwise serves until SIGINT/SIGTERM.
   */
  serving?: (dashboard: { url: string; loginUrl: string }, stop: () => void) => void;
}

const OUTPUTS = ["table", "json", "csv"] as const;

/** Both runs of a comparison see one `now` and one fetch of each Prometheus range query. */
interface Shared {
  nowMs: number;
  rangeQueries: RangeQueries;
}

/** Standard input, read once: `-` with --compare-set is loaded twice. */
interface StandardInput {
  text?: string;
}

function loadScenario(
  file: string,
  options: Parameters<typeof loadScenarioFile>[1] & object,
  stdin: StandardInput,
): Promise<ScenarioResult> {
  if (file !== "-") return loadScenarioFile(file, options);
  if (stdin.text === undefined) {
    try {
      stdin.text = readFileSync(0, "utf8");
    } catch (error) {
      const message = `cannot read the scenario: ${ioErrorText(error)}`;
      return Promise.resolve({ ok: false, errors: [{ file, message }] });
    }
  }
  return resolveScenario(stdin.text, { ...options, file, baseDir: process.cwd() });
}

async function load(
  file: string,
  sets: string[],
  options: SimulateOptions,
  io: SimulateIO,
  shared: Shared,
  stdin: StandardInput,
): Promise<Scenario | null> {
  // Checked by simulateCommand before any load.
  const version =
    options.kubernetesVersion === undefined
      ? undefined
      : parseKubernetesVersion(options.kubernetesVersion).version;
  let durationMs: number | undefined;
  if (options.duration !== undefined) {
    const parsed = parseDuration(options.duration);
    if (!parsed.ok || parsed.ms <= 0) {
      io.err(`error: --duration: ${parsed.ok ? "must be positive" : parsed.error}`);
      return null;
    }
    durationMs = parsed.ms;
  }
  const loaded = await loadScenario(
    file,
    {
      sets,
      ...shared,
      ...(version !== undefined ? { kubernetesVersion: version } : {}),
      ...(options.fromPrometheus !== undefined
        ? {
            fromPrometheus: {
              url: options.fromPrometheus,
              ...(durationMs !== undefined ? { durationMs } : {}),
            },
          }
        : {}),
    },
    stdin,
  );
  if (!loaded.ok) {
    for (const e of loaded.errors) io.err(`error: ${formatScenarioError(e)}`);
    return null;
  }
  const scenario = loaded.scenario;
  for (const warning of scenario.warnings) io.err(`Warning: ${warning}`);
  if (durationMs !== undefined) scenario.spec.durationMs = durationMs;
  if (options.seed !== undefined) {
    if (!/^\d+$/.test(options.seed)) {
      io.err(`error: --seed: expected a non-negative integer, got "${options.seed}"`);
      return null;
    }
    scenario.spec.seed = Number(options.seed);
  }
  return scenario;
}

function progressReporter(io: SimulateIO, label: string, quiet: boolean) {
  const started = Date.now();
  let lastLine = -1;
  let shown = false;
  return {
    update(fraction: number) {
      if (quiet || Date.now() - started < 1000) return;
      const percent = Math.floor(fraction * 100);
      if (io.interactive) {
        const width = 30;
        const filled = Math.round(fraction * width);
        process.stderr.write(
          `\r${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${percent}%`,
        );
        shown = true;
      } else if (Math.floor(percent / 10) > lastLine) {
        lastLine = Math.floor(percent / 10);
        io.err(`${label}: ${percent}% of virtual time simulated`);
      }
    },
    done() {
      if (shown) process.stderr.write("\n");
    },
  };
}

export async function simulateCommand(
  file: string,
  options: SimulateOptions,
  io: SimulateIO,
): Promise<number> {
  if (!OUTPUTS.includes(options.output as (typeof OUTPUTS)[number])) {
    io.err(`error: --output: expected one of ${OUTPUTS.join(", ")}, got "${options.output}"`);
    return 2;
  }
  if (options.kubernetesVersion !== undefined) {
    const read = readKubernetesVersionFlag(options.kubernetesVersion);
    if (!read.ok) {
      io.err(read.error);
      return 2;
    }
  }
  const assertions: Assertion[] = [];
  for (const expr of options.assert) {
    const parsed = parseAssertion(expr);
    if (!parsed.ok) {
      io.err(`error: --assert "${expr}": ${parsed.error}`);
      return 2;
    }
    assertions.push(parsed.assertion);
  }
  if (options.compare && options.compareSet.length > 0) {
    io.err("error: use either --compare FILE or --compare-set PATH=VALUE, not both");
    return 2;
  }
  const comparing = options.compare !== undefined || options.compareSet.length > 0;
  if (comparing && options.output !== "table") {
    io.err("error: --compare prints a comparison table; --output json|csv is for single runs");
    return 2;
  }

  let serveAddress: { host: string; port: number } | null = null;
  if (options.serve !== undefined && options.serve !== false) {
    const text = options.serve === true ? DEFAULT_SERVE_ADDRESS : options.serve;
    // Without a listener there is nothing to serve: "0" is not "off" here.
    const parsed = parseBindAddress("serve", text, false);
    if (!parsed.ok || parsed.value === null) {
      io.err(`error: ${parsed.ok ? "--serve: must be HOST:PORT" : parsed.errors.join("; ")}`);
      return 2;
    }
    serveAddress = parsed.value;
  }
  if (options.report !== undefined) {
    const problem = outputFileProblem("--report", options.report);
    if (problem) {
      io.err(`error: ${problem}`);
      return 2;
    }
  }

  const shared: Shared = { nowMs: Date.now(), rangeQueries: new RangeQueries() };
  const stdin: StandardInput = {};
  const scenario = await load(file, options.set, options, io, shared, stdin);
  if (!scenario) return 2;
  let other: Scenario | null = null;
  if (comparing) {
    other = options.compare
      ? await load(options.compare, options.set, options, io, shared, stdin)
      : await load(file, [...options.set, ...options.compareSet], options, io, shared, stdin);
    if (!other) return 2;
  }
  const quiet = options.quiet ?? false;

  const runOne = async (
    target: Scenario,
    label: string,
    stream: boolean,
    yardsticks?: Record<string, DemandYardstick | null>,
  ): Promise<{ result: RunResult; report: ReportBuilder | null; recorded: RecordedRun | null }> => {
    const progress = progressReporter(io, label, quiet);
    const recorder = serveAddress ? new RunRecorder(target, label) : null;
    let report: ReportBuilder | null = null;
    let json: JsonLinesWriter | null = null;
    let csv: CsvWriter | null = null;
    // Streamed output waits for stdout to drain, so a long run never piles up in memory.
    let pending: Promise<void> | undefined;
    const write = (chunk: string) => {
      const wait = io.out(chunk);
      if (wait) pending = wait;
    };
    if (stream && options.output === "json") json = new JsonLinesWriter(write);
    if (stream && options.output === "csv") csv = new CsvWriter(write);
    const result = await runSimulation({
      scenario: target,
      emit: (record: SimulationRecord) => {
        if (record.type === "start" && options.report) report = new ReportBuilder(record);
        else report?.add(record);
        json?.write(record);
        csv?.write(record);
        recorder?.add(record);
        const wait = pending;
        pending = undefined;
        return wait;
      },
      progress: (fraction) => progress.update(fraction),
      ...(yardsticks ? { yardsticks } : {}),
    });
    progress.done();
    return { result, report, recorded: recorder?.finish() ?? null };
  };

  const first = await runOne(scenario, scenario.spec.name, !comparing);
  let second: Awaited<ReturnType<typeof runOne>> | null = null;
  // --compare-set compares settings: the edited run's elasticity is measured against the
  // demand of the file as written (its own target would move its demand).
  const written = options.compareSet.length > 0 ? scenarioYardsticks(scenario) : undefined;
  if (other) second = await runOne(other, `${other.spec.name} (compare)`, false, written);

  const compareLabels: [string, string] = [
    file,
    options.compare ?? `${file} with ${options.compareSet.join(", ")}`,
  ];
  const line = (text: string) => (text.endsWith("\n") ? text : `${text}\n`);
  if (options.output === "table") {
    if (second) {
      await io.out(line(formatComparison(first.result, second.result, compareLabels)));
    } else {
      await io.out(line(formatSummaryTable(first.result.summary, first.result.start)));
    }
  }
  if (options.report && first.report) {
    const report = first.report as ReportBuilder;
    if (second?.report) report.addComparison(second.report, second.result.summary, compareLabels);
    const page = reportHtml(report.document(first.result.summary));
    if (!page.ok) {
      io.err(`error: --report: ${page.error}`);
      return 1;
    }
    const failed = writeOutputFile("--report", options.report, page.html);
    if (failed) {
      io.err(`error: ${failed}`);
      return 1;
    }
    if (!quiet) io.err(`Report written to ${options.report}`);
  }
  let code = 0;
  if (assertions.length > 0) {
    const checked = checkAssertions(assertions, first.result.summary);
    // What the --assert flags asked: printed with --quiet too.
    for (const line of checked.lines) io.err(line);
    if (!checked.passed) code = 1;
  }
  if (options.output === "table" && !quiet) {
    io.err(
      `Simulated ${formatDuration(scenario.spec.durationMs)} of virtual time (seed ${scenario.spec.seed}).`,
    );
  }
  if (serveAddress && first.recorded) {
    if (second?.recorded) second.recorded.label = compareLabels[1];
    const served = await serveRuns(first.recorded, second?.recorded ?? null, serveAddress, io);
    if (served !== 0) return served;
  }
  return code;
}

/** A free loopback port unless told otherwise: the URL is printed. */
export const DEFAULT_SERVE_ADDRESS = "127.0.0.1:0";

/** Serves the dashboard over the run(s) until SIGINT/SIGTERM (or the test's stop). */
async function serveRuns(
  run: RecordedRun,
  compare: RecordedRun | null,
  address: { host: string; port: number },
  io: SimulateIO,
): Promise<number> {
  let dashboard: RunningDashboard;
  try {
    dashboard = await startDashboardServer({
      ...address,
      data: simulationData(run, compare),
      // Nobody else knows this token: the one-time link is the way in.
      auth: new DashboardAuth(randomBytes(32).toString("base64url")),
    });
  } catch (error) {
    io.err(`error: --serve: ${(error as Error).message}`);
    return 1;
  }
  const loginUrl = dashboard.loginUrl();
  io.err(`Dashboard: ${dashboard.url}`);
  io.err(`  log in once with this link (it works one time): ${loginUrl}`);
  io.err("Press Ctrl-C to stop.");
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    io.serving?.({ url: dashboard.url, loginUrl }, stop);
  });
  await dashboard.close();
  return 0;
}
