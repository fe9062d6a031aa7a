// Label selectors: the string form a scale subresource reports (`status.selector`, parsed as
// upstream labels.Parse) and the structured metav1.LabelSelector of metric specs.
import type { LabelSelector } from "./types.js";
import { isQualifiedName, isValidLabelValue } from "./validation.js";

export type SelectorOperator = "=" | "!=" | "in" | "notin" | "exists" | "!";

export interface SelectorRequirement {
  key: string;
  operator: SelectorOperator;
  values: string[];
}

export interface Selector {
  requirements: SelectorRequirement[];
  /** The canonical string, as labels.Selector.String() prints it. */
  text: string;
}

export type SelectorResult = { ok: true; selector: Selector } | { ok: false; error: string };

function requirementText(r: SelectorRequirement): string {
  switch (r.operator) {
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
    case "=":
    case "!=":
      return `${r.key}${r.operator}${r.values[0]}`;
    default:
      return `${r.key} ${r.operator} (${[...r.values].sort().join(",")})`;
  }
}

function build(requirements: SelectorRequirement[]): Selector {
  // Upstream sorts requirements by key for its String() form.
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { requirements: sorted, text: sorted.map(requirementText).join(",") };
}

// The rules validation applies to labels (upstream labels.Parse uses IsQualifiedName and
// IsValidLabelValue too). Selectors repeat the same few keys and values: remember the valid ones.
const validKeys = new Set<string>();
const validValues = new Set<string>();

/**
 * How many distinct selectors, keys and values are remembered: above one per HPA at 10,000 HPAs
 * (a smaller bound made every sync a miss there), the oldest forgotten first.
 */
const REMEMBERED = 65_536;

/** Forgets the oldest entry when `set` is full. */
function makeRoom<K>(set: Set<K> | Map<K, unknown>): void {
  if (set.size >= REMEMBERED) set.delete(set.keys().next().value as K);
}

function checkKey(key: string): string | null {
  if (validKeys.has(key)) return null;
  if (isQualifiedName(key).length > 0) return `invalid label key "${key}"`;
  makeRoom(validKeys);
  validKeys.add(key);
  return null;
}

function checkValue(value: string): string | null {
  if (validValues.has(value)) return null;
  if (isValidLabelValue(value).length > 0) return `invalid label value: "${value}"`;
  makeRoom(validValues);
  validValues.add(value);
  return null;
}

// Scales report the same selector string on every sync; parse each distinct one once.
const parsedSelectors = new Map<string, SelectorResult>();

/** Parses the string syntax (`app=web,tier!=db,env in (a,b),!canary,track`). */
export function parseSelector(text: string): SelectorResult {
  let result = parsedSelectors.get(text);
  if (result === undefined) {
    result = parseSelectorUncached(text);
    makeRoom(parsedSelectors);
    parsedSelectors.set(text, result);
  }
  return result;
}

function parseSelectorUncached(text: string): SelectorResult {
  const requirements: SelectorRequirement[] = [];
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  if (current.trim() !== "" || parts.length > 0) parts.push(current);
  for (const raw of parts) {
    const part = raw.trim();
    if (part === "") return { ok: false, error: `found '', expected: identifier in "${text}"` };
    let requirement: SelectorRequirement | null = null;
    const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (setMatch) {
      const values = setMatch[3]!.split(",").map((v) => v.trim());
      requirement = { key: setMatch[1]!, operator: setMatch[2] as "in" | "notin", values };
    } else if (part.startsWith("!")) {
      requirement = { key: part.slice(1).trim(), operator: "!", values: [] };
    } else {
      const eq = /^([^!=\s]+)\s*(==|!=|=)\s*(.*)$/.exec(part);
      if (eq) {
        requirement = {
          key: eq[1]!,
          operator: eq[2] === "!=" ? "!=" : "=",
          values: [eq[3]!.trim()],
        };
      } else if (/^\S+$/.test(part)) {
        requirement = { key: part, operator: "exists", values: [] };
      }
    }
    if (!requirement) return { ok: false, error: `unable to parse requirement: "${part}"` };
    const problem =
      checkKey(requirement.key) ?? requirement.values.map(checkValue).find((p) => p) ?? null;
    if (problem) return { ok: false, error: `unable to parse requirement: ${problem}` };
    requirements.push(requirement);
  }
  return { ok: true, selector: build(requirements) };
}

/** metav1.LabelSelectorAsSelector: null/undefined selects nothing special (everything). */
export function selectorFromLabelSelector(
  selector: LabelSelector | null | undefined,
): SelectorResult {
  const requirements: SelectorRequirement[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) {
    const problem = checkKey(key) ?? checkValue(value);
    if (problem) return { ok: false, error: problem };
    requirements.push({ key, operator: "=", values: [value] });
  }
  for (const expr of selector?.matchExpressions ?? []) {
    const problem = checkKey(expr.key);
    if (problem) return { ok: false, error: problem };
    const values = expr.values ?? [];
    switch (expr.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          return { ok: false, error: `for 'in', 'notin' operators, values set can't be empty` };
        }
        requirements.push({
          key: expr.key,
          operator: expr.operator === "In" ? "in" : "notin",
          values,
        });
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          return { ok: false, error: `values set must be empty for exists and does not exist` };
        }
        requirements.push({
          key: expr.key,
          operator: expr.operator === "Exists" ? "exists" : "!",
          values,
        });
        break;
      default:
        return { ok: false, error: `"${expr.operator}" is not a valid label selector operator` };
    }
  }
  return { ok: true, selector: build(requirements) };
}

export function selectorMatches(selector: Selector, labels: Record<string, string>): boolean {
  for (const r of selector.requirements) {
    const has = Object.hasOwn(labels, r.key);
    const value = labels[r.key];
    switch (r.operator) {
      case "=":
      case "in":
        if (!has || !r.values.includes(value!)) return false;
        break;
      case "!=":
      case "notin":
        if (has && r.values.includes(value!)) return false;
        break;
      case "exists":
        if (!has) return false;
        break;
      case "!":
        if (has) return false;
        break;
    }
  }
  return true;
}
