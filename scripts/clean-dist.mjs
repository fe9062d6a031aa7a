// Removes dist/ before `npm pack` builds it again (the `prepack` script), so a module renamed or
// deleted in src/ never ships as a stale compiled file: the package holds exactly this build.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

rmSync(join(fileURLToPath(import.meta.url), "..", "..", "dist"), { recursive: true, force: true });
