// A custom resource's Table (apiextensions' table convertor): NAME, then the CRD version's
// additionalPrinterColumns, each a JSONPath into the object; AGE alone when there are none.
// Cells are typed by the column's type; a value missing or of another type is a null cell.
import { since } from "./printing.js";
import type { Printer, TableColumnDefinition } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

interface Column {
  definition: TableColumnDefinition;
  /** null: not a simple path (the CRD's validation refuses it); its cells are null. */
  path: Step[] | null;
}

type Step =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "filter"; key: string; value: string };

/**
 * The simple JSONPaths CRDs use: `.a.b`, `[0]`, `['a.b']` and `[?(@.type=="Ready")]` filters;
 * null when the path is not one of those (its cells are then empty).
 */
export function parseJsonPath(path: string): Step[] | null {
  const steps: Step[] = [];
  const text = path.trim().replace(/^\{(.*)\}$/, "$1");
  const token =
    /\.([A-Za-z0-9_$-]+)|\[(\d+)\]|\[['"]([^'"]+)['"]\]|\[\?\(@\.([A-Za-z0-9_-]+)\s*==\s*['"]([^'"]*)['"]\)\]/y;
  let at = 0;
  while (at < text.length) {
    token.lastIndex = at;
    const m = token.exec(text);
    if (!m) return null;
    if (m[1] !== undefined) steps.push({ kind: "field", name: m[1] });
    else if (m[2] !== undefined) steps.push({ kind: "index", index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ kind: "field", name: m[3] });
    else steps.push({ kind: "filter", key: m[4]!, value: m[5]! });
    at = token.lastIndex;
  }
  return steps;
}

function find(object: unknown, steps: readonly Step[]): unknown {
  let cur: unknown = object;
  for (const step of steps) {
    if (step.kind === "field") cur = isObj(cur) ? cur[step.name] : undefined;
    else if (step.kind === "index") cur = Array.isArray(cur) ? cur[step.index] : undefined;
    else
      cur = Array.isArray(cur)
        ? cur.find((i) => isObj(i) && i[step.key] === step.value)
        : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** cellForJSONValue: the value as the column's type, else null; a string column prints any value. */
function cell(type: string, value: unknown, now: number): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case "string":
      return typeof value === "string" ? value : JSON.stringify(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date":
      return typeof value === "string"
        ? Number.isNaN(Date.parse(value))
          ? "<invalid>"
          : since(value, now)
        : null;
    default:
      return null;
  }
}

/** The Table printer of a CRD version's additionalPrinterColumns. */
export function printerOf(
  name: TableColumnDefinition,
  age: TableColumnDefinition,
  additional: readonly Obj[],
): Printer {
  const columns: Column[] =
    additional.length === 0
      ? [
          {
            definition: age,
            path: [
              { kind: "field", name: "metadata" },
              { kind: "field", name: "creationTimestamp" },
            ],
          },
        ]
      : additional.map((c) => ({
          definition: {
            name: typeof c.name === "string" ? c.name : "",
            type: typeof c.type === "string" ? c.type : "string",
            format: typeof c.format === "string" ? c.format : "",
            description: typeof c.description === "string" ? c.description : "",
            priority: typeof c.priority === "number" ? c.priority : 0,
          },
          path: typeof c.jsonPath === "string" ? parseJsonPath(c.jsonPath) : null,
        }));
  return {
    columns: [name, ...columns.map((c) => c.definition)],
    cells: (obj, now) => [
      obj.metadata.name,
      ...columns.map((c) => (c.path ? cell(c.definition.type, find(obj, c.path), now) : null)),
    ],
  };
}
