// The `horizon` command line: every command, and how a usage error ends (exit 2, with the
// command's help hint). main.ts runs it on process.argv.
import { Command, CommanderError, type OutputConfiguration } from "commander";
import {
  KUBERNETES_VERSION_FLAG,
  KUBERNETES_VERSION_HELP,
} from "../api/kubernetes-version-flag.js";
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

/** The exit code of every usage error (unknown option or command, missing or extra argument). */
export const USAGE_EXIT_CODE = 2;

/** `horizon`, every command registered. `output` replaces stdout/stderr (tests). */
export function createProgram(output?: OutputConfiguration): Command {
  const program = new Command()
    .name("horizon")
    .description(
      "The Kubernetes Horizontal Pod Autoscaler, exactly as upstream v1.34 to v1.37 (--kubernetes-version): predict, explain and run it.",
    )
    .version("0.1.0");
  // Set before the commands are created: each command copies them. Commander would exit 1 on a
  // usage error, the code the commands give "an --assert failed", "invalid", ...; it throws
  // instead and runCommandLine turns that into exit 2.
  program.exitOverride();
  if (output) program.configureOutput(output);

  program
    .command("demo")
    .description(
      "Run the exact decision core on a built-in sample HPA and print each sync's decision and trace",
    )
    .option("--json", "print every sync's decision trace as JSON lines instead of a table")
    .option("--duration <seconds>", "virtual seconds to run", "660")
    .action((options: { json?: boolean; duration: string }, command: Command) => {
      const duration = Number(options.duration);
      if (!Number.isInteger(duration) || duration <= 0) {
        command.error(
          `error: option '--duration <seconds>' must be a positive integer, got "${options.duration}"`,
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
      "run a second scenario (its own traffic; --duration, --seed and --set apply to both) and print both side by side",
    )
    .option(
      "--compare-set <path=value>",
      "compare with this scenario changed by --set-style edits, on the same traffic (repeatable)",
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
    .option(
      "-q, --quiet",
      "only errors, warnings and the --assert results on stderr (no progress, no status lines)",
    )
    .option(
      "--from-prometheus <url>",
      "replay each workload's real request rate from this Prometheus over the last --duration (query in docs/scenarios.md)",
    )
    .option(
      "--serve [host:port]",
      "after the run, serve the dashboard over it (and the --compare run), with what-if runs; default 127.0.0.1:0 (a free port, printed)",
    )
    .option(KUBERNETES_VERSION_FLAG, `${KUBERNETES_VERSION_HELP} (overrides the scenario)`)
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
    .description(
      "Run conformance vector files; prints each failing vector and `N passed, N failed`",
    )
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
    .option(KUBERNETES_VERSION_FLAG, KUBERNETES_VERSION_HELP)
    .action((files: string[], options: { featureGates?: string; kubernetesVersion?: string }) => {
      process.exitCode = validateCommand(files, options);
    });

  registerUpCommand(program);
  registerAdapterCommand(program);
  registerControllerCommand(program);
  registerLoadCommand(program);
  registerExplainCommand(program);
  registerTuneCommand(program);

  // After a usage error, one line pointing at the help of the command at fault (as kubectl's
  // "See 'kubectl get -h' for help and examples"), not the whole help of the program.
  program.showHelpAfterError("Run 'horizon --help' for usage.");
  for (const command of program.commands) {
    command.showHelpAfterError(`Run 'horizon ${command.name()} --help' for usage.`);
  }
  return program;
}

/**
 * Parses `args` (without node and the script) and runs the command. Returns the exit code of
 * what ends here: 0 after --help or --version, USAGE_EXIT_CODE after a usage error; undefined
 * when a command ran (it sets process.exitCode).
 */
export async function runCommandLine(
  program: Command,
  args: readonly string[],
): Promise<number | undefined> {
  try {
    // As kubectl: the program alone prints its help on stdout and succeeds.
    if (args.length === 0) {
      program.outputHelp();
      return 0;
    }
    // `horizon help NAME` for an unknown NAME: commander prints the program's help (exit 1).
    if (args[0] === "help" && args[1] !== undefined && !isCommand(program, args[1])) {
      program.error(`error: unknown command '${args[1]}'`);
    }
    await program.parseAsync(args, { from: "user" });
    return undefined;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
  }
}

function isCommand(program: Command, name: string): boolean {
  return program.commands.some((c) => c.name() === name || c.aliases().includes(name));
}
