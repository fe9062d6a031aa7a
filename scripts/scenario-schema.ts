// `npm run schema:scenario`: writes the Scenario document's JSON Schema (from its zod schema in
// src/sim/scenario-schema.ts) to docs/scenario.schema.json, for editors.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderScenarioJsonSchema } from "../src/sim/scenario-schema.js";

const out = join(import.meta.dirname, "..", "docs", "scenario.schema.json");
writeFileSync(out, renderScenarioJsonSchema());
console.log(`wrote ${out}`);
