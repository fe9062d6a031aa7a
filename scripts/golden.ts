// The examples' simulation outputs, pinned: `npm run golden` prints whether each example still
// gives the output recorded in test/fixtures/golden/examples.json; `npm run golden -- --update`
// records the current outputs (after a deliberate change of behaviour, said in the commit).
// test/sim/golden.test.ts runs the same comparison in `npm test`.
import { writeFileSync } from "node:fs";
import { compareGolden, GOLDEN_FILE, goldenOutputs } from "../test/sim/golden.js";

const update = process.argv.includes("--update");
const outputs = await goldenOutputs();
if (update) {
  writeFileSync(GOLDEN_FILE, `${JSON.stringify(outputs, null, 2)}\n`);
  console.log(`recorded ${Object.keys(outputs).length} examples in ${GOLDEN_FILE}`);
} else {
  const problems = compareGolden(outputs);
  for (const p of problems) console.log(p);
  console.log(
    problems.length === 0 ? "every example gives its recorded output" : `${problems.length} differ`,
  );
  process.exitCode = problems.length === 0 ? 0 : 1;
}
