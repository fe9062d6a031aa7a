// The Dockerfile's build stage has every file its RUN steps need: no Docker engine runs here, so
// this reads the Dockerfile and package.json instead. `npm ci` runs the `prepare` script (and
// `npm run X` runs X with preX/postX); each script's `node FILE`, `tsx FILE` and `tsc -p FILE`
// (with the tsconfig's `extends`) must be COPYed into the stage, and not in .dockerignore.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../e2e/controller-helpers.js";

interface Stage {
  name: string;
  /** Context paths COPYed (or ADDed) into the stage, repository-relative. */
  copied: string[];
  runs: string[];
}

/** The Dockerfile's stages, with continuation lines joined and comments dropped. */
function stagesOf(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [instruction = "", ...rest] = line.split(/\s+/);
    const keyword = instruction.toUpperCase();
    if (keyword === "FROM") {
      const as = rest.findIndex((w) => w.toUpperCase() === "AS");
      stages.push({ name: as >= 0 ? rest[as + 1]! : String(stages.length), copied: [], runs: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) continue;
    if (keyword === "RUN") stage.runs.push(rest.join(" "));
    if (keyword === "COPY" || keyword === "ADD") {
      const words = rest.filter((w) => !w.startsWith("--"));
      if (rest.some((w) => w.startsWith("--from="))) continue;
      for (const source of words.slice(0, -1)) stage.copied.push(normalize(source));
    }
  }
  return stages;
}

/** The files a shell command line runs: `node F`, `tsx F`, `tsc -p F`; and the npm scripts. */
function commandsOf(line: string): { files: string[]; scripts: string[] } {
  const files: string[] = [];
  const scripts: string[] = [];
  for (const command of line.split(/&&|\|\||;/)) {
    const words = command.trim().split(/\s+/);
    const [program, ...args] = words;
    const positional = args.filter((a) => !a.startsWith("-"));
    if (program === "node" || program === "tsx") {
      if (positional[0]) files.push(positional[0]);
    } else if (program === "tsc") {
      const project = args.indexOf("-p") >= 0 ? args.indexOf("-p") : args.indexOf("--project");
      files.push(project >= 0 ? args[project + 1]! : "tsconfig.json");
    } else if (program === "npm" && args[0] === "ci") scripts.push("prepare");
    else if (program === "npm" && (args[0] === "install" || args[0] === "i"))
      scripts.push("prepare");
    else if (program === "npm" && args[0] === "run" && args[1]) scripts.push(args[1]);
  }
  return { files, scripts };
}

/** Every file the stage's RUN steps read, following npm scripts and tsconfig `extends`. */
function neededFiles(runs: string[], scripts: Record<string, string>): string[] {
  const needed = new Set<string>(["package.json"]);
  const seen = new Set<string>();
  const visit = (line: string) => {
    const { files, scripts: names } = commandsOf(line);
    for (const file of files) needed.add(normalize(file));
    for (const name of names) {
      for (const script of [`pre${name}`, name, `post${name}`]) {
        if (seen.has(script) || scripts[script] === undefined) continue;
        seen.add(script);
        visit(scripts[script]);
      }
    }
  };
  for (const run of runs) visit(run);
  for (const file of [...needed]) {
    let config = file;
    while (config.endsWith(".json") && existsSync(join(ROOT, config))) {
      const extended = (
        JSON.parse(readFileSync(join(ROOT, config), "utf8")) as { extends?: string }
      ).extends;
      if (!extended?.startsWith(".")) break;
      config = normalize(join(dirname(config), extended));
      needed.add(config);
    }
  }
  return [...needed].sort();
}

const covers = (source: string, file: string) =>
  source === "." || file === source || file.startsWith(`${source}/`);

describe("Dockerfile", () => {
  const stages = stagesOf(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
  const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#") && !l.includes("*"));

  it("parses into a build stage that runs npm ci, and a runtime stage", () => {
    assert.deepEqual(
      stages.map((s) => s.name),
      ["build", "1"],
    );
    assert.ok(stages[0]!.runs.some((r) => /\bnpm ci\b/.test(r)));
  });

  it("COPYs every file the build stage's RUN steps need (npm ci's prepare, npm run build)", () => {
    for (const stage of stages) {
      for (const source of stage.copied) assert.ok(existsSync(join(ROOT, source)), source);
      if (stage.runs.length === 0) continue;
      const needed = neededFiles(stage.runs, packageJson.scripts);
      assert.ok(needed.includes("tsconfig.build.json"), `${needed}`);
      for (const file of needed) {
        assert.ok(existsSync(join(ROOT, file)), `${file} (needed by the ${stage.name} stage)`);
        assert.ok(
          stage.copied.some((source) => covers(source, file)),
          `the ${stage.name} stage runs with ${file} but does not COPY it (COPYs: ${stage.copied.join(" ")})`,
        );
        const excluding = ignored.find((pattern) => covers(normalize(pattern), file));
        assert.equal(excluding, undefined, `${file} is in .dockerignore`);
      }
    }
  });

  it("finds the scripts prepare runs (the check sees what npm ci needs)", () => {
    const needed = neededFiles(["npm ci"], packageJson.scripts);
    assert.ok(needed.includes("scripts/build-web.mjs"), `${needed}`);
    assert.ok(needed.includes("scripts/bundle-tune-worker.mjs"), `${needed}`);
    assert.ok(needed.includes("tsconfig.json"), `${needed}`);
  });
});
