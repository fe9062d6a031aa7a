// `horizon simulate --report FILE.html`: one self-contained file that opens from file:// with no
// server and no network: the dashboard's bundle (dist/dashboard) inlined, rendering the run's
// report document (src/sim/report.ts) from an inline JSON block with the same components as
// the dashboard. A Content-Security-Policy allows exactly the inline script and style (by hash)
// and nothing else: no fetch, no other origin.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReportDocument } from "../sim/report.js";
import { defaultAssetsDir } from "./server.js";

/** The id of the JSON block the page reads its document from. */
export const REPORT_DATA_ID = "horizon-report";

export type ReportHtml = { ok: true; html: string } | { ok: false; error: string };

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The report page; an error naming `npm run build:web` when the bundle is not built. */
export function reportHtml(doc: ReportDocument, assetsDir = defaultAssetsDir()): ReportHtml {
  const files = ["app.js", "app.css"].map((name) => join(assetsDir, name));
  const missing = files.find((file) => !existsSync(file));
  if (missing) {
    return {
      ok: false,
      error: `the dashboard bundle is not built (${missing} is missing): run npm run build:web`,
    };
  }
  // Inside <script> nothing may read as its end tag; the JSON escapes every "<".
  const script = readFileSync(files[0]!, "utf8").replace(/<\/script/gi, "<\\/script");
  const style = readFileSync(files[1]!, "utf8").replace(/<\/style/gi, "<\\/style");
  const data = JSON.stringify(doc).replace(/</g, "\\u003c");
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return {
    ok: true,
    html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="generator" content="horizon simulate">
<title>${escapeText(doc.title)}</title>
<style>${style}</style>
</head>
<body>
<div id="app"></div>
<script type="application/json" id="${REPORT_DATA_ID}">${data}</script>
<script type="module">${script}</script>
</body>
</html>
`,
  };
}
