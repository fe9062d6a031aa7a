#!/usr/bin/env -S node --max-semi-space-size=32
// The published entry point runs the compiled CLI (`npm run build`, or `npm ci` via `prepare`).
// A 32 MiB young generation: simulations allocate many short-lived values per sync, and the
// default nursery makes the garbage collector run far more often (see docs/simulate.md).
await import("../dist/cli/main.js");
