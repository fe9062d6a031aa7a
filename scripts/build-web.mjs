// Bundles the dashboard's front end (src/web/app, Preact + uPlot) into dist/dashboard/app.js and
// app.css with esbuild: no CDN, nothing fetched at run time. Run by `prepare` (npm ci), pretest
// and prestart, so a fresh clone serves a current bundle; `node scripts/build-web.mjs [OUTDIR]`.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(fileURLToPath(import.meta.url), "..", "..");

export async function buildDashboard(outdir = join(root, "dist", "dashboard")) {
  await build({
    entryPoints: { app: join(root, "src", "web", "app", "main.tsx") },
    bundle: true,
    outdir,
    format: "esm",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    logLevel: "warning",
  });
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await buildDashboard(process.argv[2]);
  console.log(`dashboard bundle: ${out}`);
}
