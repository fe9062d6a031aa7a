// `horizon up SCENARIO --prometheus` as a process (the real CLI): the scenario's ServiceMonitor
// is created with the other objects and becomes Prometheus' scrape job (it used to be skipped
// with a warning), its traffic is sent to the app's Service (scenario-traffic.test.ts follows
// it to the HPA), and a SIGKILLed `horizon up` takes its Prometheus child with it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { prometheusSkip } from "../prometheus/real-prometheus.js";
import { pollUntil } from "./helpers.js";
import { testRanges } from "./network-helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CLI = [process.execPath, "--import", "tsx", join(ROOT, "src", "cli", "main.ts")];

const skip = prometheusSkip("up-prometheus-cli");

/** The processes whose arguments hold `needle`, from /proc (Linux): pid and argv[0]. */
function processesWith(needle: string): { pid: number; argv0: string }[] {
  const found: { pid: number; argv0: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv.includes(needle)) found.push({ pid: Number(entry), argv0: argv[0] ?? "" });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Running: the process exists and is not a zombie waiting for a reaper. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("horizon up examples/custom-metrics.yaml --prometheus (the CLI)", { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), "horizon-up-prometheus-cli-"));
  const { podCidr, serviceCidr } = testRanges();
  const child = spawn(
    CLI[0]!,
    [
      ...CLI.slice(1),
      "up",
      join(ROOT, "examples", "custom-metrics.yaml"),
      "--port",
      "0",
      "--insecure-http",
      "--kubeconfig-out",
      join(dir, "kubeconfig"),
      "--prometheus",
      "--prometheus-scrape-interval",
      "1s",
      "--pod-cidr",
      podCidr,
      "--service-cidr",
      serviceCidr,
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  let prometheusUrl = "";
  let prometheusPid = 0;
  let listen = "";

  before(async () => {
    prometheusUrl = await pollUntil(
      "the banner's Prometheus URL",
      () => /^ {2}prometheus: (http:\/\/127\.0\.0\.1:\d+) /m.exec(stdout)?.[1],
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    listen = `--web.listen-address=${prometheusUrl.slice("http://".length)}`;
    // Prometheus itself and its watchdog (a shell: see src/prometheus/process.ts).
    const found = processesWith(listen);
    const prometheus = found.filter((p) => p.argv0.endsWith("prometheus"));
    assert.equal(prometheus.length, 1, JSON.stringify(found));
    assert.equal(found.length, 2, JSON.stringify(found));
    prometheusPid = prometheus[0]!.pid;
  });
  after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    if (running(prometheusPid)) process.kill(prometheusPid, "SIGKILL");
  });

  test("the scenario's ServiceMonitor is created and becomes the operator's scrape job", async () => {
    assert.doesNotMatch(stderr, /ServiceMonitor/);
    assert.match(stdout, /cluster: scenario .*custom-metrics\.yaml \(4 objects\)/);
    // Its traffic is sent to the sample app's Service (from the spike at 1m on), not only modelled.
    assert.match(
      stdout,
      /^ {2}traffic: the scenario's traffic is sent as HTTP requests to its workloads' Services \(--scenario-traffic model keeps it modelled\)$/m,
    );
    assert.match(
      stdout,
      /scenario traffic of deployment\/sample-app \(namespace default\): sent as HTTP requests to service\/sample-app at http:\/\/127\.\d+\.\d+\.\d+\/$/m,
    );
    const jobs = await pollUntil(
      "the ServiceMonitor's job in Prometheus' configuration",
      async () => {
        const answer = (await (await fetch(`${prometheusUrl}/api/v1/status/config`)).json()) as {
          data: { yaml: string };
        };
        const config = parseYaml(answer.data.yaml) as { scrape_configs?: { job_name: string }[] };
        const names = (config.scrape_configs ?? []).map((c) => c.job_name);
        return names.length > 0 ? names : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.deepEqual(jobs, ["serviceMonitor/default/sample-app/0"]);
    // Prometheus scrapes the sample app's pod through it.
    const target = await pollUntil(
      "a healthy target of the job",
      async () => {
        const answer = (await (await fetch(`${prometheusUrl}/api/v1/targets`)).json()) as {
          data: { activeTargets: { labels: Record<string, string>; health: string }[] };
        };
        return answer.data.activeTargets.find((t) => t.health === "up");
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.equal(target.labels.job, "sample-app");
    assert.equal(target.labels.namespace, "default");
    assert.match(target.labels.pod ?? "", /^sample-app-/);
  });

  test("kill -9 of horizon up: its Prometheus stops too", async () => {
    assert.ok(running(prometheusPid));
    child.kill("SIGKILL");
    await exited;
    await pollUntil(
      `Prometheus (pid ${prometheusPid}) to stop`,
      () => (running(prometheusPid) ? undefined : true),
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    // Nor does the watchdog stay behind.
    await pollUntil(
      "no process left with Prometheus' arguments",
      () => (processesWith(listen).every((p) => !running(p.pid)) ? true : undefined),
      { timeoutMs: 5_000, intervalMs: 100 },
    );
  });
});
