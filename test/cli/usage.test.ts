// Usage errors of every command: exit 2 (commander's default is 1, the code the commands give
// their own results), one line naming the command's help; the program alone prints its help.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createProgram, runCommandLine, USAGE_EXIT_CODE } from "../../src/cli/program.js";

const root = join(import.meta.dirname, "..", "..");

/** Parses `args` in-process (no command runs past its usage check), output collected. */
async function usage(args: string[]) {
  let stdout = "";
  let stderr = "";
  const program = createProgram({
    writeOut: (text) => {
      stdout += text;
    },
    writeErr: (text) => {
      stderr += text;
    },
  });
  const code = await runCommandLine(program, args);
  return { code, stdout, stderr };
}

describe("usage errors exit 2 with the command's help hint", () => {
  const commands: { command: string; args: string[] }[] = [
    { command: "simulate", args: ["examples/cpu-step.yaml"] },
    { command: "tune", args: ["examples/cpu-step.yaml"] },
    { command: "validate", args: ["examples/cpu-step.yaml"] },
    { command: "demo", args: [] },
    { command: "conformance", args: ["test/fixtures/conformance/pod-grouping.json"] },
    { command: "load", args: ["web"] },
    { command: "adapter", args: [] },
    { command: "up", args: [] },
    { command: "controller", args: [] },
    { command: "explain", args: ["hpa/web"] },
  ];
  for (const c of commands) {
    it(`${c.command}: an unknown option`, async () => {
      const answer = await usage([c.command, ...c.args, "--bogus"]);
      assert.equal(answer.code, USAGE_EXIT_CODE);
      assert.equal(
        answer.stderr,
        `error: unknown option '--bogus'\nRun 'horizon ${c.command} --help' for usage.\n`,
      );
    });
  }

  const cases: { name: string; args: string[]; stderr: RegExp }[] = [
    {
      name: "a near miss, with the suggestion",
      args: ["simulate", "examples/cpu-step.yaml", "--asert", "flaps==0"],
      stderr:
        /^error: unknown option '--asert'\n\(Did you mean --assert\?\)\nRun 'horizon simulate --help'/,
    },
    {
      name: "a missing argument",
      args: ["simulate"],
      stderr:
        /^error: missing required argument 'file'\nRun 'horizon simulate --help' for usage\.\n$/,
    },
    {
      name: "a flag without its value",
      args: ["simulate", "examples/cpu-step.yaml", "--duration"],
      stderr:
        /^error: option '--duration <duration>' argument missing\nRun 'horizon simulate --help'/,
    },
    {
      name: "load --rps without its value",
      args: ["load", "x", "--rps"],
      stderr: /^error: option '--rps <n>' argument missing\nRun 'horizon load --help'/,
    },
    {
      name: "too many arguments",
      args: ["up", "a", "b"],
      stderr:
        /^error: too many arguments for 'up'\. Expected 1 argument but got 2\.\nRun 'horizon up --help'/,
    },
    {
      name: "demo --duration abc",
      args: ["demo", "--duration", "abc"],
      stderr:
        /^error: option '--duration <seconds>' must be a positive integer, got "abc"\nRun 'horizon demo --help' for usage\.\n$/,
    },
    {
      name: "up --data-dir with --in-memory",
      args: ["up", "--data-dir", "x", "--in-memory"],
      stderr:
        /^error: --data-dir and --in-memory cannot be used together\nRun 'horizon up --help' for usage\.\n$/,
    },
    {
      name: "an unknown command",
      args: ["frobnicate"],
      stderr: /^error: unknown command 'frobnicate'\nRun 'horizon --help' for usage\.\n$/,
    },
    {
      name: "help for an unknown command",
      args: ["help", "frobnicate"],
      stderr: /^error: unknown command 'frobnicate'\nRun 'horizon --help' for usage\.\n$/,
    },
    {
      name: "an unknown option of the program",
      args: ["--bogus"],
      stderr: /^error: unknown option '--bogus'\nRun 'horizon --help' for usage\.\n$/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const answer = await usage(c.args);
      assert.equal(answer.code, USAGE_EXIT_CODE);
      assert.match(answer.stderr, c.stderr);
      assert.equal(answer.stdout, "");
    });
  }
});

describe("help", () => {
  it("the program alone prints its help on stdout and exits 0, as kubectl", async () => {
    const answer = await usage([]);
    assert.equal(answer.code, 0);
    assert.match(answer.stdout, /^Usage: horizon \[options\] \[command\]/);
    assert.match(answer.stdout, /\n {2}simulate \[options\] <file> /);
    assert.equal(answer.stderr, "");
  });

  it("--help and help COMMAND exit 0 on stdout", async () => {
    for (const args of [["--help"], ["simulate", "--help"], ["help", "simulate"]]) {
      const answer = await usage(args);
      assert.equal(answer.code, 0, args.join(" "));
      assert.match(answer.stdout, /^Usage: horizon /, args.join(" "));
      assert.equal(answer.stderr, "");
    }
  });

  it("simulate --help says whose traffic --compare and --compare-set run on", async () => {
    const { stdout } = await usage(["simulate", "--help"]);
    assert.match(
      stdout.replace(/\s+/g, " "),
      /--compare <file> run a second scenario \(its own traffic;/,
    );
    assert.match(stdout.replace(/\s+/g, " "), /--compare-set <path=value> .* on the same traffic/);
  });
});

describe("through the real process", () => {
  const horizon = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "src/cli/main.ts", ...args],
        { cwd: root },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error.code as number | undefined) ?? 1) : 0, stdout, stderr }),
      );
    });

  it("exit 2 for a usage error, 0 with the help for no arguments", async () => {
    const [unknown, bare] = await Promise.all([
      horizon(["simulate", "examples/cpu-step.yaml", "--asert", "flaps==0"]),
      horizon([]),
    ]);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /unknown option '--asert'/);
    assert.equal(bare.code, 0, bare.stderr);
    assert.match(bare.stdout, /^Usage: horizon /);
  });
});
