// Helpers of the real-kubectl end-to-end tests: finding the kubectl binaries, running them
// against an in-process `horizon up` (child processes, never spawnSync: the server shares this
// event loop), watching their output, and polling with deadlines instead of sleeping.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, statSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { describe, it } from "node:test";
import type { KubernetesVersion } from "../../src/api/versions.js";
import type { Scenario } from "../../src/sim/scenario-types.js";
import { emptyScenario, type RunningUp, type StartUpOptions, startUp } from "../../src/up/up.js";

export interface KubectlBinary {
  /** How the tests name it: "kubectl" (the PATH one) or "kubectl.1.27". */
  name: string;
  path: string;
}

export interface KubectlSearch {
  binaries: KubectlBinary[];
  /** Why some or all binaries are missing (printed when tests skip). */
  missing: string[];
}

function isExecutableFile(path: string): boolean {
  try {
    return statSync(path).isFile() && (statSync(path).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** `which kubectl`, without a child process. */
export function whichKubectl(pathEnv = process.env.PATH ?? ""): string | null {
  for (const dir of pathEnv.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "kubectl");
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/**
 * The kubectl on PATH (on these machines gcloud's kubectl-dispatcher, which picks a kubectl by
 * the server's /version minor) and the versioned binaries shipped beside its real path.
 */
export function findKubectls(versions: readonly string[] = ["1.27", "1.33"]): KubectlSearch {
  const onPath = whichKubectl();
  if (onPath === null) return { binaries: [], missing: ["no kubectl on PATH"] };
  const binaries: KubectlBinary[] = [{ name: "kubectl", path: onPath }];
  const missing: string[] = [];
  const dir = dirname(realpathSync(onPath));
  for (const version of versions) {
    const path = join(dir, `kubectl.${version}`);
    if (isExecutableFile(path)) binaries.push({ name: `kubectl.${version}`, path });
    else missing.push(`no kubectl.${version} in ${dir}`);
  }
  return { binaries, missing };
}

/** Under CI=true a missing kubectl is a failure, elsewhere a printed skip. */
export function kubectlRequired(): boolean {
  return process.env.CI === "true";
}

/**
 * The kubectl binaries a suite runs over (the PATH one unless `versionedOnly`, then kubectl.1.27
 * and kubectl.1.33), with a test saying so: a missing one fails it under CI=true, elsewhere it
 * skips printing why.
 */
export function kubectlsUnderTest(
  suite: string,
  options: { versionedOnly?: boolean } = {},
): KubectlBinary[] {
  const search = findKubectls(["1.27", "1.33"]);
  const binaries = options.versionedOnly
    ? search.binaries.filter((b) => b.name !== "kubectl")
    : search.binaries;
  const expected = [...(options.versionedOnly ? [] : ["kubectl"]), "kubectl.1.27", "kubectl.1.33"];
  describe(`kubectl binaries (${suite})`, () => {
    it(`finds ${expected.join(", ")}`, (t) => {
      const missing = search.missing.join("; ");
      if (missing !== "") {
        if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${missing}`);
        t.skip(`kubectl missing: ${missing}`);
        console.log(`# skipping ${suite} tests: ${missing}`);
        return;
      }
      assert.deepEqual(
        binaries.map((b) => b.name),
        expected,
      );
    });
  });
  return binaries;
}

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface KubectlContext {
  binary: KubectlBinary;
  kubeconfig: string;
  /** A private discovery/HTTP cache (kubectl caches per host:port). */
  cacheDir: string;
}

function kubectlEnv(context: KubectlContext): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KUBECONFIG: context.kubeconfig,
    // The dispatcher and gcloud must not read or write the user's configuration.
    CLOUDSDK_CONFIG: join(context.cacheDir, "gcloud"),
    NO_COLOR: "1",
  };
}

function kubectlArgs(context: KubectlContext, args: readonly string[]): string[] {
  return [`--kubeconfig=${context.kubeconfig}`, `--cache-dir=${context.cacheDir}`, ...args];
}

/** Signals the process group of a kubectl this file started (the dispatcher and its kubectl). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** Runs kubectl to completion (killed after `timeoutMs`). */
export function kubectl(
  context: KubectlContext,
  args: readonly string[],
  options: { stdin?: string; timeoutMs?: number } = {},
): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(context.binary.path, kubectlArgs(context, args), {
      env: kubectlEnv(context),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      killGroup(child, "SIGKILL");
      stderr += `\n[test] killed after ${options.timeoutMs ?? 20_000} ms`;
    }, options.timeoutMs ?? 20_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

/** A long-running kubectl (`get -w`) whose output is read while it runs. */
/** A kubectl run's stdout, once it exited 0 (else fails with both outputs). */
export function kubectlOk(result: KubectlResult, what: string): string {
  assert.equal(result.code, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** `kubectl get` table text as rows of cells (columns are two or more spaces apart). */
export function tableRows(text: string): string[][] {
  return text
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s{2,}/));
}

export interface KubectlWatch {
  output(): string;
  /** Resolves with stdout once `predicate` holds; rejects at the deadline with the output so far. */
  waitFor(
    predicate: (stdout: string, stderr: string) => boolean,
    timeoutMs: number,
  ): Promise<string>;
  stop(): Promise<KubectlResult>;
  /** Resolves once kubectl exits by itself; rejects at the deadline (and stops it). */
  exited(timeoutMs: number): Promise<KubectlResult>;
}

export function kubectlWatch(context: KubectlContext, args: readonly string[]): KubectlWatch {
  // Its own process group: gcloud's dispatcher runs the real kubectl as a child, and both
  // must go when the watch is stopped.
  const child: ChildProcess = spawn(context.binary.path, kubectlArgs(context, args), {
    env: kubectlEnv(context),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  let exitCode: number | null | undefined;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    notify();
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    notify();
  });
  const closed = new Promise<void>((resolve) =>
    child.on("close", (code) => {
      exitCode = code;
      notify();
      resolve();
    }),
  );
  return {
    output: () => stdout,
    waitFor(predicate, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(stdout, stderr)) {
            finish();
            resolve(stdout);
          } else if (exitCode !== undefined) {
            finish();
            reject(new Error(`kubectl exited (${exitCode}) first:\n${stdout}\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no match within ${timeoutMs} ms; output:\n${stdout}\n${stderr}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (exitCode === undefined) killGroup(child, "SIGTERM");
      await closed;
      return { code: exitCode ?? null, stdout, stderr };
    },
    async exited(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), timeoutMs);
      });
      const first = await Promise.race([closed, deadline]);
      clearTimeout(timer);
      if (first === "late") {
        killGroup(child, "SIGTERM");
        await closed;
        throw new Error(`kubectl still running after ${timeoutMs} ms:\n${stdout}\n${stderr}`);
      }
      return { code: exitCode ?? null, stdout, stderr };
    },
  };
}

/** Polls `probe` until it returns a value other than undefined, or fails at the deadline. */
export async function pollUntil<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

/** An empty cluster whose metrics pipeline scrapes every second (upstream metrics-server: 15 s). */
export function fastScenario(kubernetesVersion?: KubernetesVersion): Scenario {
  const scenario = emptyScenario(kubernetesVersion);
  scenario.spec.cluster.metricsResolutionMs = 1000;
  return scenario;
}

export interface TestServer {
  up: RunningUp;
  dir: string;
  /** A kubectl context per binary, each with its own cache dir. */
  context(binary: KubectlBinary, kubeconfig?: string): KubectlContext;
}

/** `horizon up` in-process on an ephemeral 127.0.0.1 port, with a kubeconfig in a temp dir. */
export async function startTestServer(options: StartUpOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "horizon-e2e-"));
  const started = await startUp({
    scenario: fastScenario(),
    port: 0,
    address: "127.0.0.1",
    kubeconfigOut: join(dir, "kubeconfig"),
    syncPeriodMs: 1000,
    ...options,
  });
  if (!started.ok) throw new Error(`horizon up failed: ${started.error}`);
  const up = started.value;
  let contexts = 0;
  return {
    up,
    dir,
    context(binary, kubeconfig) {
      const cacheDir = join(dir, `cache-${binary.name}-${contexts++}`);
      return { binary, kubeconfig: kubeconfig ?? up.kubeconfigPath!, cacheDir };
    },
  };
}

const REPO = join(import.meta.dirname, "..", "..");

/** A running `horizon` command (the real CLI through tsx, in its own process). */
export interface HorizonProcess {
  child: ChildProcess;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/** Starts `horizon ARGS` from the repository's root, collecting what it prints. */
export function spawnHorizon(args: readonly string[]): HorizonProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO, "src", "cli", "main.ts"), ...args],
    { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
  });
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** One request to `horizon up` over HTTPS with its CA and admin token: the status and body. */
export function requestUp(
  up: RunningUp,
  method: string,
  path: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${up.url}${path}`,
      {
        method,
        ca: up.caCert ?? undefined,
        headers: { authorization: `Bearer ${up.token}` },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
