// The npm package is what a user installs: `npm pack` (its `prepack` builds dist/), then the
// tarball installed into a temporary prefix as `npm install -g` would, on no clone. The project is
// packed from a copy in a temporary directory (node_modules linked), so the repository's own
// dist/ is neither rebuilt under other tests nor left changed. Needs npm and the npm registry for
// the runtime dependencies (the local cache first); never skipped.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ROOT } from "../e2e/controller-helpers.js";

/** What `npm pack` needs of the repository: the sources and what builds them. */
const PACKED_FROM = [
  "package.json",
  "package-lock.json",
  "README.md",
  "tsconfig.json",
  "tsconfig.build.json",
  "bin",
  "examples",
  "scripts",
  "src",
];

/** npm's own settings from an enclosing `npm test` would steer the nested npm: drop them. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key)) env[key] = value;
  }
  return env;
}

function run(command: string, args: string[], cwd: string, env = cleanEnv()) {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 180_000 });
  const output = `${result.stdout}\n${result.stderr}`;
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(" ")} failed (${result.status}):\n${output}`,
  );
  return result;
}

describe("the npm package", () => {
  const scratch = mkdtempSync(join(tmpdir(), "horizon-package-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("packs dist/ without tests, installs from the tarball and runs simulate", {
    timeout: 300_000,
  }, () => {
    const project = join(scratch, "project");
    mkdirSync(project);
    for (const entry of PACKED_FROM)
      cpSync(join(ROOT, entry), join(project, entry), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");

    const pack = run("npm", ["pack", "--json", "--pack-destination", scratch], project);
    const [manifest] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as [
      { filename: string; files: { path: string }[] },
    ];
    const files = manifest.files.map((f) => f.path);
    for (const needed of [
      "bin/horizon.js",
      "dist/cli/main.js",
      "dist/dashboard/app.js",
      "dist/dashboard/app.css",
      "dist/sim/tune/worker.js",
      "examples/cpu-step.yaml",
    ]) {
      assert.ok(files.includes(needed), `the package lacks ${needed}`);
    }
    const unwanted = files.filter(
      (f) => /^(test|bench|src|scripts|docs|deploy)\//.test(f) || f.endsWith(".ts"),
    );
    assert.deepEqual(unwanted, [], "the package holds sources, tests or benchmarks");
    // tune's worker is one bundled file (it loads no zod or yaml of its own from node_modules).
    const worker = readFileSync(join(project, "dist", "sim", "tune", "worker.js"), "utf8");
    assert.doesNotMatch(worker, /from "zod"|from "yaml"/);

    const prefix = join(scratch, "prefix");
    run(
      "npm",
      [
        "install",
        "--global",
        "--prefix",
        prefix,
        join(scratch, manifest.filename),
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
      ],
      scratch,
    );
    const installed = join(prefix, "lib", "node_modules", "horizon");
    // Runtime dependencies only: no compiler, bundler or test tools.
    for (const dev of ["typescript", "esbuild", "tsx", "@biomejs/biome", "playwright-core"]) {
      assert.ok(!existsSync(join(installed, "node_modules", dev)), `${dev} was installed`);
    }

    // A user's directory with no clone: an example copied out of the repository.
    const work = join(scratch, "work");
    mkdirSync(work);
    copyFileSync(join(ROOT, "examples", "cpu-step.yaml"), join(work, "cpu-step.yaml"));
    const horizon = join(prefix, "bin", "horizon");
    const env = { ...cleanEnv(), PATH: `${join(prefix, "bin")}:${process.env.PATH}` };

    const help = run(horizon, ["--help"], work, env);
    assert.match(help.stdout, /^Usage: horizon \[options\] \[command\]/);
    assert.match(help.stdout, /simulate/);

    const simulate = run(
      horizon,
      ["simulate", "cpu-step.yaml", "--report", "report.html"],
      work,
      env,
    );
    assert.match(simulate.stdout, /^Simulation "cpu-step": seed 1, 30m0s/);
    assert.match(simulate.stdout, /HPA default\/web → default\/Deployment\/web/);
    // The report inlines the dashboard's bundle from the package's dist/dashboard.
    const report = readFileSync(join(work, "report.html"), "utf8");
    assert.match(report, /<script type="module">/);
    assert.ok(report.length > 50_000, `the report is ${report.length} characters`);

    // tune's worker threads load the package's bundled worker.
    const tune = run(
      horizon,
      [
        "tune",
        "cpu-step.yaml",
        "--search",
        "spec.maxReplicas: [5, 10]",
        "--jobs",
        "2",
        "-o",
        "json",
      ],
      work,
      env,
    );
    const ranked = JSON.parse(tune.stdout) as { spaceSize: number; best: { ok: boolean } | null };
    assert.equal(ranked.spaceSize, 2);
    assert.equal(ranked.best?.ok, true, tune.stdout.slice(0, 500));
  });
});
