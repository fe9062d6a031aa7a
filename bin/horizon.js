#!/usr/bin/env node
// The published entry point runs the compiled CLI (`npm run build` or `npm ci`, via `prepare`).
await import("../dist/cli/main.js");
