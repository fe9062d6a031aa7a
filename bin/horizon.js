#!/usr/bin/env -S node --max-semi-space-size=32
// The published entry point runs the compiled CLI: built by `npm run build`, by `npm ci` (its
// `prepare`), and into the package by `npm pack` (its `prepack`).
// A 32 MiB young generation: simulations allocate many short-lived values per sync, and the
// default nursery makes the garbage collector run far more often (see docs/simulate.md).
await import("../dist/cli/main.js");
