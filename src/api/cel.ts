// CEL (Common Expression Language) expressions, as Kubernetes' validation rules use them,
// parsed and evaluated by @marcbachmann/cel-js. Integers are CEL ints (bigint); doubles are
// numbers. Parsing is cached: the same rules run on every write.
import { parse } from "@marcbachmann/cel-js";

/** A parsed expression: evaluate it with its variables (a thrown error is an evaluation error). */
export type CelProgram = (variables: Record<string, unknown>) => unknown;

const programs = new Map<string, CelProgram | Error>();

/** The parsed expression, or why it does not parse. */
export function celProgram(text: string): CelProgram | Error {
  let p = programs.get(text);
  if (p === undefined) {
    try {
      const parsed = parse(text);
      p = (variables) => parsed(variables);
    } catch (err) {
      p = err instanceof Error ? err : new Error(String(err));
    }
    programs.set(text, p);
  }
  return p;
}
