// `--set KIND[/[NAMESPACE/]NAME]:FIELD.PATH[INDEX]=VALUE`: edits one field of one raw YAML
// document of a scenario before it is converted and validated, so a bad value gets the same
// error as if it had been written in the file. Syntax documented in docs/scenarios.md.
import { Document, isMap, isScalar, isSeq, type Node, parseDocument, YAMLMap } from "yaml";

/** One step of a field path: a map key or a list index. */
export type PathSegment = string | number;

/** A parsed `--set` expression. */
export interface SetExpression {
  /** Canonical Kind, e.g. "HorizontalPodAutoscaler", "Scenario". */
  kind: string;
  namespace: string | null;
  name: string | null;
  path: PathSegment[];
  value: unknown;
}

export type SetResult = { ok: true; document: number } | { ok: false; error: string };

// Lowercase kinds, plurals and kubectl short names.
const KINDS: Record<string, string> = {};
for (const [kind, aliases] of [
  ["HorizontalPodAutoscaler", ["hpa"]],
  ["Deployment", ["deploy"]],
  ["StatefulSet", ["sts"]],
  ["ReplicaSet", ["rs"]],
  ["ReplicationController", ["rc"]],
  ["Service", ["svc"]],
  ["Pod", ["po"]],
  ["Namespace", ["ns"]],
  ["Scenario", []],
] as const) {
  const lower = kind.toLowerCase();
  for (const alias of [lower, `${lower}s`, ...aliases]) KINDS[alias] = kind;
}

/** The Kind a `--set` or workload reference word names (`hpa`, `deploy`, `Deployment`...). */
export function resolveKind(word: string): string | undefined {
  return KINDS[word.toLowerCase()];
}

/** Renders a path as upstream field paths read: `spec.metrics[0].resource`, `labels[a.b/c]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${seg}]`;
  }
  return out;
}

/**
 * Parses a field path: `a.b[0].c`, `labels[app.kubernetes.io/name]`, `annotations["x.y"]`.
 * Also reads the paths upstream validation prints. Returns the segments and where it stopped
 * (at the first top-level `=`, or the end).
 */
export function parseFieldPath(
  text: string,
  stopAtEquals = false,
): { ok: true; path: PathSegment[]; end: number } | { ok: false; error: string } {
  const path: PathSegment[] = [];
  let i = 0;
  let expectKey = true;
  while (i < text.length) {
    const c = text[i];
    if (c === "=" && stopAtEquals) break;
    if (c === "[") {
      const close = bracketEnd(text, i);
      if (close < 0) return { ok: false, error: `unclosed "[" at position ${i + 1}` };
      const inner = text.slice(i + 1, close);
      if (/^\d+$/.test(inner)) path.push(Number(inner));
      else if (inner.startsWith('"')) {
        try {
          path.push(String(JSON.parse(inner)));
        } catch {
          return { ok: false, error: `bad quoted key ${inner}` };
        }
      } else if (inner.startsWith("'") && inner.endsWith("'") && inner.length >= 2) {
        path.push(inner.slice(1, -1));
      } else if (inner === "" || /^-\d+$/.test(inner)) {
        return { ok: false, error: `bad index [${inner}]: expected a number from 0` };
      } else path.push(inner);
      i = close + 1;
      expectKey = false;
      continue;
    }
    if (c === ".") {
      if (expectKey) return { ok: false, error: `empty field name at position ${i + 1}` };
      expectKey = true;
      i++;
      continue;
    }
    if (c === "]") return { ok: false, error: `unexpected "]" at position ${i + 1}` };
    if (!expectKey) return { ok: false, error: `expected "." or "[" at position ${i + 1}` };
    let j = i;
    while (j < text.length && !".[]".includes(text[j]!) && !(stopAtEquals && text[j] === "=")) {
      j++;
    }
    path.push(text.slice(i, j));
    i = j;
    expectKey = false;
  }
  if (path.length === 0) return { ok: false, error: "empty field path" };
  if (expectKey) return { ok: false, error: "field path ends with ." };
  return { ok: true, path, end: i };
}

function bracketEnd(text: string, open: number): number {
  const quote = text[open + 1];
  if (quote === '"' || quote === "'") {
    for (let k = open + 2; k < text.length; k++) {
      if (quote === '"' && text[k] === "\\") k++;
      else if (text[k] === quote) return text[k + 1] === "]" ? k + 1 : -1;
    }
    return -1;
  }
  return text.indexOf("]", open);
}

const SYNTAX = "expected KIND[/NAME]:FIELD.PATH=VALUE, e.g. hpa/web:spec.maxReplicas=10";

/** Parses `KIND[/[NAMESPACE/]NAME]:FIELD.PATH=VALUE`; VALUE is read as YAML (a scalar or flow). */
export function parseSetExpression(
  expr: string,
): { ok: true; value: SetExpression } | { ok: false; error: string } {
  const fail = (why: string) => ({ ok: false as const, error: `--set ${expr}: ${why}` });
  const colon = expr.indexOf(":");
  const eq = expr.indexOf("=");
  if (colon < 0 || (eq >= 0 && eq < colon)) {
    // A bare field path (as `horizon tune --search` takes): name the document it needs.
    if (/^(spec|metadata)[.[]/.test(expr)) {
      return fail(
        `missing "KIND:" before the field path (${SYNTAX}; the file's only HPA: hpa:${expr})`,
      );
    }
    return fail(`missing ":" (${SYNTAX})`);
  }
  const target = expr.slice(0, colon).split("/");
  if (target.length > 3 || target.some((part) => part === "")) {
    return fail(`bad document "${expr.slice(0, colon)}" (${SYNTAX})`);
  }
  const kind = resolveKind(target[0]!);
  if (!kind) {
    const known = [...new Set(Object.keys(KINDS).filter((k) => !k.endsWith("s")))].sort();
    return fail(`unknown kind "${target[0]}" (known: ${known.join(", ")})`);
  }
  const field = parseFieldPath(expr.slice(colon + 1), true);
  if (!field.ok) return fail(field.error);
  const valueStart = colon + 1 + field.end;
  if (expr[valueStart] !== "=") return fail(`missing "=VALUE" (${SYNTAX})`);
  const valueText = expr.slice(valueStart + 1);
  const parsed = parseDocument(valueText, { prettyErrors: false });
  if (parsed.errors.length > 0) {
    return fail(`bad value ${JSON.stringify(valueText)}: ${parsed.errors[0]!.message}`);
  }
  return {
    ok: true,
    value: {
      kind,
      namespace: target.length === 3 ? target[1]! : null,
      name: target.length >= 2 ? target[target.length - 1]! : null,
      path: field.path,
      value: valueText.trim() === "" ? null : parsed.toJS(),
    },
  };
}

// Nodes written by --set, with the expression that wrote them, so errors can say so.
const ORIGIN = new WeakMap<object, string>();

/** The `--set` expression that created this YAML node, if any. */
export function setOrigin(node: unknown): string | undefined {
  return typeof node === "object" && node !== null ? ORIGIN.get(node) : undefined;
}

/** Identity of a raw document: its kind, namespace ("default" if unset) and name. */
export function documentIdentity(
  doc: Document,
): { kind: string; apiVersion: string; namespace: string; name: string } | null {
  const root = doc.contents;
  if (!isMap(root)) return null;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return {
    kind: text(scalarValue(root.get("kind", true))),
    apiVersion: text(scalarValue(root.get("apiVersion", true))),
    namespace: text(scalarValue(root.getIn(["metadata", "namespace"], true))) || "default",
    name: text(scalarValue(root.getIn(["metadata", "name"], true))),
  };
}

function scalarValue(node: unknown): unknown {
  return isScalar(node) ? node.value : node;
}

/**
 * Applies one `--set` expression to the raw documents (in place). Addresses the document of that
 * kind and name (the name may be left out when only one document has the kind); `scenario:`
 * creates the Scenario document when the file has none. Missing intermediate maps are created;
 * a list index must exist.
 */
export function applySet(documents: Document[], expr: string): SetResult {
  const parsed = parseSetExpression(expr);
  if (!parsed.ok) return parsed;
  const { kind, namespace, name, path, value } = parsed.value;
  const fail = (why: string): SetResult => ({ ok: false, error: `--set ${expr}: ${why}` });
  const candidates: number[] = [];
  documents.forEach((doc, i) => {
    const id = documentIdentity(doc);
    if (!id || id.kind !== kind) return;
    if (name !== null && id.name !== name) return;
    if (namespace !== null && id.namespace !== namespace) return;
    candidates.push(i);
  });
  let index: number;
  if (candidates.length === 1) index = candidates[0]!;
  else if (candidates.length > 1) {
    const names = candidates.map((i) => {
      const id = documentIdentity(documents[i]!)!;
      return `${id.namespace}/${id.name}`;
    });
    return fail(
      `${candidates.length} ${kind} documents match (${names.join(", ")}); name one, e.g. ${kind.toLowerCase()}/${documentIdentity(documents[candidates[0]!]!)!.name}:…`,
    );
  } else if (kind === "Scenario" && !documents.some((d) => documentIdentity(d)?.kind === kind)) {
    // A plain manifest file gets its Scenario document from --set. Unnamed unless the
    // expression names it: the run keeps the file's name, as without --set.
    const doc = new Document({
      apiVersion: "horizon.dev/v1alpha1",
      kind: "Scenario",
      ...(name === null ? {} : { metadata: { name } }),
      spec: {},
    });
    ORIGIN.set(doc.contents as object, expr);
    documents.push(doc);
    index = documents.length - 1;
  } else {
    const what = name === null ? "" : ` named ${namespace === null ? "" : `${namespace}/`}${name}`;
    return fail(`no ${kind} document${what} in the scenario`);
  }
  const doc = documents[index]!;
  const error = setIn(doc, path, value, expr);
  return error === null ? { ok: true, document: index } : fail(error);
}

function describe(node: unknown): string {
  if (isMap(node)) return "a map";
  if (isSeq(node)) return "a list";
  return "a scalar";
}

function setIn(doc: Document, path: PathSegment[], value: unknown, expr: string): string | null {
  // Check the whole path first, so a failed --set leaves the document untouched.
  const problem = checkPath(doc, path);
  if (problem !== null) return problem;
  let node: unknown = doc.contents;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const last = i === path.length - 1;
    const here = formatPath(path.slice(0, i)) || "the document";
    if (typeof seg === "number") {
      if (!isSeq(node)) return `${here} is ${describe(node)}, not a list: cannot index [${seg}]`;
      if (seg >= node.items.length) {
        return `index ${seg} out of range: ${here} has ${node.items.length} item${node.items.length === 1 ? "" : "s"}`;
      }
      if (last) {
        node.items[seg] = created(doc, value, expr);
        return null;
      }
      node = node.items[seg];
      continue;
    }
    if (!isMap(node)) {
      return `${here} is ${describe(node)}, not a map: cannot set field "${seg}"`;
    }
    const pair = node.items.find((p) => keyText(p.key) === seg);
    if (last) {
      const valueNode = created(doc, value, expr);
      if (pair) pair.value = valueNode;
      else node.items.push(doc.createPair(seg, valueNode));
      return null;
    }
    let next: unknown = pair?.value;
    if (next === undefined || next === null || (isScalar(next) && next.value === null)) {
      // Missing (or null) intermediate maps are created.
      next = new YAMLMap();
      ORIGIN.set(next as object, expr);
      if (pair) pair.value = next as Node;
      else node.items.push(doc.createPair(seg, next));
    }
    node = next;
  }
  return null;
}

function checkPath(doc: Document, path: PathSegment[]): string | null {
  let node: unknown = doc.contents;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const here = formatPath(path.slice(0, i)) || "the document";
    const missing =
      node === undefined || node === null || (isScalar(node) && node.value === null && i > 0);
    if (missing) {
      // Only maps are created on the way; a list index needs an existing list.
      if (typeof seg === "number") return `${here} does not exist: cannot index [${seg}]`;
      continue;
    }
    if (typeof seg === "number") {
      if (!isSeq(node)) return `${here} is ${describe(node)}, not a list: cannot index [${seg}]`;
      if (seg >= node.items.length) {
        return `index ${seg} out of range: ${here} has ${node.items.length} item${node.items.length === 1 ? "" : "s"}`;
      }
      node = node.items[seg];
    } else {
      if (!isMap(node)) return `${here} is ${describe(node)}, not a map: cannot set field "${seg}"`;
      node = node.items.find((p) => keyText(p.key) === seg)?.value;
    }
  }
  return null;
}

function created(doc: Document, value: unknown, expr: string): Node {
  const node = doc.createNode(value);
  ORIGIN.set(node, expr);
  return node;
}

/** A map key as text (scalar keys; others by their string form). */
export function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}
