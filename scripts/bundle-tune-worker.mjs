// Bundles `horizon tune`'s worker thread (src/sim/tune/worker.ts and everything it imports) into
// one file with esbuild, written over the compiled worker: every worker is a new V8 isolate that
// loads its modules again, and as ~230 files (most of them zod's) that took ~200 ms of CPU per
// worker against ~100 ms as one file. Run after tsc by `build`, `prepare` and `bench:tune`:
// `node scripts/bundle-tune-worker.mjs OUTFILE`.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(fileURLToPath(import.meta.url), "..", "..");

export async function bundleTuneWorker(outfile) {
  await build({
    entryPoints: [join(root, "src", "sim", "tune", "worker.ts")],
    outfile,
    allowOverwrite: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // yaml's CommonJS build requires Node's built-ins: give the ES module a `require` for them.
    banner: {
      js: 'import { createRequire as __horizonRequire } from "node:module"; const require = __horizonRequire(import.meta.url);',
    },
    legalComments: "none",
    logLevel: "warning",
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = process.argv[2];
  if (outfile === undefined || outfile === "--help" || outfile === "-h") {
    console.error(
      "usage: node scripts/bundle-tune-worker.mjs OUTFILE (e.g. dist/sim/tune/worker.js)",
    );
    process.exit(outfile === undefined ? 2 : 0);
  }
  console.log(`tune worker bundle: ${await bundleTuneWorker(outfile)}`);
}
