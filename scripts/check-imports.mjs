// The module graph's rules (docs/design.md): no import cycles under src/ (type imports
// included), and each room imports only the rooms below it: `api` nothing of Horizon's, the
// pure core only `api`, the kinds and the registry neither the cluster nor the API server, the
// cluster not the API server, the controller none of its adapters (client-node's `kube`, the
// cluster), nothing but `cli` the command line, and nothing below them the compositions it
// calls (`up`, `controller-manager`). Prints each cycle or forbidden import (the
// importing file, the imported file and the rule) and exits 1; ends with one summary line.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const root = resolve(process.argv[2] ?? "src");
// The rooms each room may import (its own files always); a room not listed may import any
// room but those at the top (IMPORTED_ONLY_BY).
const ALLOWED = {
  api: [],
  core: ["api"],
  kinds: ["api", "core"],
  registry: ["api", "core", "kinds"],
  controller: ["api", "core"],
  explain: ["api", "core", "controller"],
  conformance: ["api", "core", "controller"],
  kube: ["api", "core", "controller"],
  prometheus: ["api", "core", "kube"],
  cluster: ["api", "core", "kinds", "registry", "controller"],
  apiserver: ["api", "core", "kinds", "registry", "cluster", "controller", "kube", "prometheus"],
  // The compositions each command calls (the command line parses flags, then calls one).
  "controller-manager": ["api", "core", "controller", "kube", "web"],
  up: [
    "api",
    "core",
    "registry",
    "cluster",
    "controller",
    "kube",
    "prometheus",
    "apiserver",
    "sim",
    "controller-manager",
  ],
};
// The top of the house: the command line, and the composition functions it calls (`horizon up`'s
// starts the controller manager). No room below imports them.
const IMPORTED_ONLY_BY = { cli: [], up: ["cli"], "controller-manager": ["cli", "up"] };

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

// `import … from "./x.js"`, `import type …`, `export … from`, `import "./x.js"`, `import("./x.js")`.
const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|(?:^|\n)\s*import\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g;

const files = sourceFiles(root);
const known = new Set(files);
const graph = new Map();
for (const file of files) {
  const deps = new Set();
  for (const match of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
    const spec = (match[1] ?? match[2] ?? match[3]).replace(/\.js$/, ".ts");
    const target = resolve(dirname(file), spec);
    if (known.has(target)) deps.add(target);
  }
  graph.set(file, [...deps]);
}

const problems = [];
const topFolder = (file) => relative(root, file).split(sep)[0];
for (const [file, deps] of graph) {
  const from = topFolder(file);
  for (const dep of deps) {
    const to = topFolder(dep);
    if (to === from) continue;
    const allowed = ALLOWED[from];
    const importers = IMPORTED_ONLY_BY[to];
    let rule = null;
    if (allowed && !allowed.includes(to)) {
      rule = `${from}/ imports only ${allowed.length ? allowed.map((r) => `${r}/`).join(", ") : "its own files"}`;
    } else if (importers && !importers.includes(from)) {
      rule =
        to === "cli"
          ? "only the command line imports cli/"
          : `only ${importers.map((r) => `${r}/`).join(" and ")} import ${to}/`;
    }
    if (rule !== null) {
      problems.push(`forbidden import: ${relative(root, file)} → ${relative(root, dep)} (${rule})`);
    }
  }
}

// Tarjan's strongly connected components: every component of more than one file is a cycle.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
function visit(v) {
  index.set(v, counter);
  low.set(v, counter);
  counter++;
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v)) {
    if (!index.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) {
      low.set(v, Math.min(low.get(v), index.get(w)));
    }
  }
  if (low.get(v) === index.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(relative(root, w));
    } while (w !== v);
    if (component.length > 1) problems.push(`import cycle: ${component.sort().join(" ↔ ")}`);
    else if (graph.get(v).includes(v))
      problems.push(`import cycle: ${component[0]} imports itself`);
  }
}
for (const file of files) if (!index.has(file)) visit(file);

for (const problem of problems) console.log(problem);
console.log(`${files.length} modules checked, ${problems.length} problems`);
process.exit(problems.length === 0 ? 0 : 1);
