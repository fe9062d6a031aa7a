// scripts/check-imports.mjs (run by `npm run lint`): each room imports only the rooms below it,
// and a violation is named with the importing and the imported file.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";

const script = new URL("../../scripts/check-imports.mjs", import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), "horizon-imports-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function check(name: string, files: Record<string, string>) {
  const root = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync(process.execPath, [script, root], { encoding: "utf8" });
  return { status: run.status, output: run.stdout };
}

const violations: { name: string; files: Record<string, string>; named: string }[] = [
  {
    name: "cluster-imports-apiserver",
    files: {
      "apiserver/handler.ts": "export const handler = 1;\n",
      "cluster/cluster.ts": 'import { handler } from "../apiserver/handler.js";\n',
    },
    named: "forbidden import: cluster/cluster.ts → apiserver/handler.ts",
  },
  {
    name: "api-imports-core",
    files: {
      "core/duration.ts": "export const d = 1;\n",
      "api/cron.ts": 'import type { d } from "../core/duration.js";\n',
    },
    named: "forbidden import: api/cron.ts → core/duration.ts",
  },
  {
    name: "controller-imports-kube",
    files: {
      "kube/types.ts": "export interface E { status: number }\n",
      "controller/lease.ts": 'import type { E } from "../kube/types.js";\n',
    },
    named: "forbidden import: controller/lease.ts → kube/types.ts",
  },
  {
    name: "registry-imports-cluster",
    files: {
      "cluster/store.ts": "export const s = 1;\n",
      "registry/admission.ts": 'export { s } from "../cluster/store.js";\n',
    },
    named: "forbidden import: registry/admission.ts → cluster/store.ts",
  },
  {
    name: "sim-imports-cli",
    files: {
      "cli/main.ts": "export const main = 1;\n",
      "sim/run.ts": 'const m = await import("../cli/main.js");\n',
    },
    named: "forbidden import: sim/run.ts → cli/main.ts",
  },
  {
    name: "web-imports-up",
    files: {
      "up/up.ts": "export const startUp = 1;\n",
      "web/server.ts": 'import { startUp } from "../up/up.js";\n',
    },
    named: "forbidden import: web/server.ts → up/up.ts (only cli/ import up/)",
  },
  {
    name: "kube-imports-controller-manager",
    files: {
      "controller-manager/controller-manager.ts": "export const startController = 1;\n",
      "kube/lease.ts": 'import "../controller-manager/controller-manager.js";\n',
    },
    named: "forbidden import: kube/lease.ts → controller-manager/controller-manager.ts",
  },
  {
    name: "controller-manager-imports-up",
    files: {
      "up/up.ts": "export const startUp = 1;\n",
      "controller-manager/controller-manager.ts": 'import "../up/up.js";\n',
    },
    named: "forbidden import: controller-manager/controller-manager.ts → up/up.ts",
  },
];

for (const { name, files, named } of violations) {
  test(`a violation fails and is named: ${name}`, () => {
    const { status, output } = check(name, files);
    assert.equal(status, 1);
    assert.match(output, new RegExp(named.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  });
}

test("imports down the rooms pass", () => {
  const { status, output } = check("allowed", {
    "api/types.ts": "export type T = number;\n",
    "core/decide.ts": 'import type { T } from "../api/types.js";\n',
    "kinds/pod.ts": 'import type { T } from "../api/types.js";\n',
    "registry/store.ts": 'import "../kinds/pod.js";\n',
    "cluster/cluster.ts": 'import "../registry/store.js";\n',
    "apiserver/handler.ts": 'import "../cluster/cluster.js";\n',
    "web/server.ts": 'import "../apiserver/handler.js";\n',
    "controller-manager/controller-manager.ts": 'import "../web/server.js";\n',
    "up/up.ts": 'import "../controller-manager/controller-manager.js";\n',
    "cli/main.ts": 'import "../up/up.js";\nimport "../controller-manager/controller-manager.js";\n',
  });
  assert.equal(status, 0, output);
  assert.match(output, /10 modules checked, 0 problems/);
});

test("an import cycle is named", () => {
  const { status, output } = check("cycle", {
    "core/a.ts": 'import "./b.js";\n',
    "core/b.ts": 'import "./a.js";\n',
  });
  assert.equal(status, 1);
  assert.match(output, /import cycle: core\/a\.ts ↔ core\/b\.ts/);
});
