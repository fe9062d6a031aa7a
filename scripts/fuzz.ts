// `npm run fuzz -- [--cases N] [--seed S]`: a long run of the API server fuzz suite
// (test/fuzz/harness.ts): N mutated writes (default 10,000) from seed S (default random,
// printed), then kubectl (when on PATH) and the controllers over what was stored. Exit 0 when every invariant held,
// 1 when one broke (the failing case, shrunk, and the seed that replays it are printed), 2 on
// bad flags.
import { Command } from "commander";
import fc from "fast-check";
import { findKubectls } from "../test/e2e/helpers.js";
import {
  fuzzCase,
  kubectlReads,
  runCase,
  runControllers,
  startFuzzServer,
} from "../test/fuzz/harness.js";

const program = new Command("fuzz")
  .description("Fuzz the embedded API server with mutated writes of every kind and verb")
  .option("--cases <n>", "how many cases", "10000")
  .option("--seed <n>", "the seed (default: random, printed)")
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .parse();
const flags = program.opts<{ cases: string; seed?: string }>();
const whole = (name: string, text: string) => {
  if (!/^\d+$/.test(text)) {
    console.error(`error: --${name}: must be a whole number, got "${text}"`);
    process.exit(2);
  }
  return Number(text);
};
const cases = whole("cases", flags.cases);
const seed =
  flags.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : whole("seed", flags.seed);

console.log(`fuzz: ${cases} cases, seed ${seed}`);
const server = await startFuzzServer();
let done = 0;
let stored = 0;
const result = await fc.check(
  fc.asyncProperty(fuzzCase, async (c) => {
    if ((await runCase(server, c)).stored) stored++;
    if (++done % 500 === 0) console.log(`  ${done}/${cases} cases, ${stored} stored`);
  }),
  { seed, numRuns: cases },
);
if (result.failed) {
  const why = result.errorInstance instanceof Error ? result.errorInstance.message : "";
  console.error(
    `${why}\n${fc.defaultReportMessage(result)}\nreplay: npm run fuzz -- --seed ${seed}`,
  );
  await server.close();
  process.exit(1);
}
console.log(`fuzz: ${done} cases, ${stored} stored`);
const kubectlBinary = findKubectls([]).binaries[0];
if (kubectlBinary) {
  console.log(`fuzz: kubectl get and describe of every kind (${kubectlBinary.path})`);
  const failures = await kubectlReads(server, kubectlBinary);
  if (failures.length > 0) {
    console.error(`kubectl failed (seed ${seed}):\n${failures.join("\n")}`);
    await server.close();
    process.exit(1);
  }
} else {
  console.log("fuzz: no kubectl on PATH: kubectl get and describe skipped");
}
const errors = await runControllers(server);
await server.close();
if (errors.length > 0) {
  console.error(`the controllers failed (seed ${seed}):\n${errors.join("\n")}`);
  process.exit(1);
}
console.log("fuzz: every invariant held");
