#!/usr/bin/env node
// The `horizon` command line (the commands are in program.ts).
import { createProgram, runCommandLine } from "./program.js";

// `horizon simulate ... -o json | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

const code = await runCommandLine(createProgram(), process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
