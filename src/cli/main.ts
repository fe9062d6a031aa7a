#!/usr/bin/env node
// The `horizon` command line.
import { Command } from "commander";
import { runConformance } from "../conformance/runner.js";
import { registerAdapterCommand } from "./adapter.js";
import { registerControllerCommand } from "./controller.js";
import { printDemo, runDemo } from "./demo.js";
import { registerExplainCommand } from "./explain.js";
import { registerLoadCommand } from "./load.js";
import { type SimulateOptions, simulateCommand } from "./simulate.js";
import { registerTuneCommand } from "./tune.js";
import { registerUpCommand } from "./up.js";
import { validateCommand } from "./validate.js";

const program = new Command()
  .name("horizon")
  .description(
    "The Kubernetes Horizontal Pod Autoscaler, exactly as upstream v1.34: predict, explain and run it.",
  )
  .version("0.1.0");

program
  .command("demo")
  .description(
    "Run the exact decision core on a built-in sample HPA and print each sync's decision and trace",
  )
  .option("--json", "print every sync's decision trace as JSON lines instead of a table")
  .option("--duration <seconds>", "virtual seconds to run", "660")
  .action((options: { json?: boolean; duration: string }) => {
    const duration = Number(options.duration);
    if (!Number.isInteger(duration) || duration <= 0) {
      program.error(
        `error: option '--duration <seconds>' must be a positive integer, got "${options.duration}"`,
        {
          exitCode: 2,
        },
      );
    }
    const steps = runDemo(duration);
    if (options.json) for (const step of steps) console.log(JSON.stringify(step.result.trace));
    else printDemo(steps, (line) => console.log(line));
  });

const collect = (value: string, previous: string[]) => [...previous, value];

program
  .command("simulate")
  .description(
    "Run a scenario (Kubernetes manifests + a horizon.dev/v1alpha1 Scenario) in virtual time and report what the HPA did and why",
  )
  .argument("<file>", "scenario YAML file, or - for standard input")
  .option(
    "--duration <duration>",
    "virtual time to simulate, e.g. 30m, 24h (overrides the scenario)",
  )
  .option("--seed <n>", "random seed (overrides the scenario)")
  .option(
    "--set <path=value>",
    "change a field before the run, e.g. hpa/web:spec.maxReplicas=20 (repeatable)",
    collect,
    [],
  )
  .option(
    "--compare <file>",
    "run a second scenario with the same traffic and print both side by side",
  )
  .option(
    "--compare-set <path=value>",
    "compare with this scenario changed by --set-style edits (repeatable)",
    collect,
    [],
  )
  .option("-o, --output <format>", "table, json (one record per line) or csv", "table")
  .option("--report <file.html>", "write a self-contained HTML report")
  .option(
    "--assert <expr>",
    "fail (exit 1) unless it holds, e.g. maxReplicas<=8, flaps==0 (repeatable)",
    collect,
    [],
  )
  .option("-q, --quiet", "no progress on stderr")
  .option(
    "--from-prometheus <url>",
    "replay each workload's real request rate from this Prometheus over the last --duration (query in docs/scenarios.md)",
  )
  .option(
    "--serve [host:port]",
    "after the run, serve the dashboard over it (and the --compare run), with what-if runs; default 127.0.0.1:0 (a free port, printed)",
  )
  .action(async (file: string, options: SimulateOptions) => {
    process.exitCode = await simulateCommand(file, options, {
      out: (chunk) =>
        process.stdout.write(chunk)
          ? undefined
          : new Promise((resolve) => process.stdout.once("drain", () => resolve())),
      err: (line) => console.error(line),
      interactive: Boolean(process.stderr.isTTY),
    });
  });

program
  .command("conformance")
  .description("Run conformance vector files; prints each failing vector and `N passed, N failed`")
  .argument("<files...>", "vector files (JSON, the format of test/fixtures/conformance)")
  .action((files: string[]) => {
    process.exitCode = runConformance(files);
  });

program
  .command("validate")
  .description(
    "Check HorizontalPodAutoscaler manifests (any autoscaling version) as the API server would",
  )
  .argument("<files...>", "YAML or JSON manifests; - reads standard input")
  .option("--feature-gates <gates>", "feature gates, e.g. HPAScaleToZero=true")
  .action((files: string[], options: { featureGates?: string }) => {
    process.exitCode = validateCommand(files, options);
  });

registerUpCommand(program);
registerAdapterCommand(program);
registerControllerCommand(program);
registerLoadCommand(program);
registerExplainCommand(program);
registerTuneCommand(program);

// `horizon simulate ... -o json | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

program.showHelpAfterError();
await program.parseAsync(process.argv);
