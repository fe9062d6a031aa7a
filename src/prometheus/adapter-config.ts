// prometheus-adapter's configuration file, read unchanged: `rules` (custom.metrics.k8s.io) and
// `externalRules` (external.metrics.k8s.io), each with seriesQuery, seriesFilters (is / isNot),
// resources (overrides, template, namespaced), name (matches, as) and metricsQuery. Regexes
// are Go's (RE2; `(?P<name>…)` groups and leading `(?i)` flags are read), templates Go's with
// `<<` `>>` delimiters. Every problem is reported with its field path (`rules[1].name.matches`);
// `resourceRules` (metrics.k8s.io) is accepted and not served.
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { type GoTemplate, parseGoTemplate } from "./gotemplate.js";
import { type GroupResource, normalizeResource } from "./resources.js";

/** One rule, compiled: what discovery and queries need. */
export interface AdapterRule {
  /** `rules[0]`, `externalRules[1]`: where the rule is in the file. */
  where: string;
  seriesQuery: string;
  /** Series names must pass every filter (the name's `matches` is one). */
  filters: { regex: RegExp; positive: boolean }[];
  nameMatches: RegExp;
  /** Go regexp Expand syntax: `$1`, `${1}`, `$name`. */
  nameAs: string;
  /** Label → resource, and back. */
  overrides: Map<string, GroupResource>;
  template: GoTemplate | null;
  /** Labels the template produces, with the group and resource they name. */
  templateLabel: RegExp | null;
  /** External rules: whether the namespace of the request is a label matcher (default true). */
  namespaced: boolean;
  metricsQuery: GoTemplate;
}

export interface AdapterConfig {
  rules: AdapterRule[];
  externalRules: AdapterRule[];
  warnings: string[];
}

export type ConfigResult = { ok: true; config: AdapterConfig } | { ok: false; errors: string[] };

const QUERY_FIELDS = ["Series", "LabelMatchers", "LabelValuesByName", "GroupBy", "GroupBySlice"];
const RESOURCE_FIELDS = ["Group", "Resource"];

const regexFilter = z.strictObject({
  is: z.string().optional(),
  isNot: z.string().optional(),
});

const ruleSchema = z.strictObject({
  seriesQuery: z.string({ error: "Required value: a PromQL series selector" }).min(1),
  seriesFilters: z.array(regexFilter).nullish(),
  resources: z
    .strictObject({
      overrides: z
        .record(
          z.string(),
          z.strictObject({
            group: z.string().optional(),
            resource: z.string({ error: "Required value" }).min(1),
          }),
        )
        .nullish(),
      template: z.string().nullish(),
      namespaced: z.boolean().nullish(),
    })
    .nullish(),
  name: z.strictObject({ matches: z.string().nullish(), as: z.string().nullish() }).nullish(),
  metricsQuery: z.string({ error: "Required value: a PromQL query template" }).min(1),
});

const configSchema = z.strictObject({
  rules: z.array(ruleSchema).nullish(),
  externalRules: z.array(ruleSchema).nullish(),
  // metrics.k8s.io's rules: Horizon's API server (or metrics-server) serves that API.
  resourceRules: z.unknown().optional(),
});

/** A Go (RE2) regular expression as a JavaScript one. */
export function goRegex(
  source: string,
): { ok: true; regex: RegExp } | { ok: false; error: string } {
  let flags = "";
  let body = source;
  const leading = /^\(\?([imsU]+)\)/.exec(body);
  if (leading) {
    if (leading[1]!.includes("U")) return { ok: false, error: "the U flag is not supported" };
    flags = leading[1]!;
    body = body.slice(leading[0].length);
  }
  body = body.replace(/\(\?P</g, "(?<");
  try {
    return { ok: true, regex: new RegExp(body, flags) };
  } catch (error) {
    return {
      ok: false,
      error: `invalid regular expression ${JSON.stringify(source)}: ${(error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "")}`,
    };
  }
}

/** Go's Regexp.ExpandString for one match: `$1`, `${1}`, `$name`, `${name}`, `$$`. */
export function expandTemplate(template: string, match: RegExpExecArray): string {
  return template.replace(
    /\$(\$|\{([^}]*)\}|(\w+))/g,
    (_all, token: string, braced?: string, bare?: string) => {
      if (token === "$") return "$";
      const name = braced ?? bare ?? "";
      if (/^\d+$/.test(name)) return match[Number(name)] ?? "";
      return match.groups?.[name] ?? "";
    },
  );
}

function compileRule(
  raw: z.output<typeof ruleSchema>,
  where: string,
  external: boolean,
  errors: string[],
): AdapterRule | null {
  const before = errors.length;
  const filters: AdapterRule["filters"] = [];
  (raw.seriesFilters ?? []).forEach((filter, i) => {
    const at = `${where}.seriesFilters[${i}]`;
    if (filter.is && filter.isNot) {
      errors.push(
        `${at}: cannot have both an \`is\` (${JSON.stringify(filter.is)}) and \`isNot\` (${JSON.stringify(filter.isNot)}) expression in a single filter`,
      );
      return;
    }
    if (!filter.is && !filter.isNot) {
      errors.push(`${at}: must have either an \`is\` or \`isNot\` expression in a filter`);
      return;
    }
    const field = filter.is ? "is" : "isNot";
    const compiled = goRegex((filter.is ?? filter.isNot)!);
    if (!compiled.ok) errors.push(`${at}.${field}: ${compiled.error}`);
    else filters.push({ regex: compiled.regex, positive: field === "is" });
  });

  let nameMatches = /.*/;
  const matches = raw.name?.matches ?? "";
  if (matches !== "") {
    const compiled = goRegex(matches);
    if (!compiled.ok) errors.push(`${where}.name.matches: ${compiled.error}`);
    else {
      nameMatches = compiled.regex;
      filters.push({ regex: compiled.regex, positive: true });
    }
  }
  let nameAs = raw.name?.as ?? "";
  if (nameAs === "") {
    // Without `as`: the whole name, or the one capture group.
    const groups = new RegExp(`${nameMatches.source}|`).exec("")!.length - 1;
    if (groups === 0) nameAs = "$0";
    else if (groups === 1) nameAs = "$1";
    else
      errors.push(
        `${where}.name.as: Required value: name.matches ${JSON.stringify(matches)} has ${groups} capture groups; say which to use`,
      );
  }

  const overrides = new Map<string, GroupResource>();
  for (const [label, target] of Object.entries(raw.resources?.overrides ?? {})) {
    const known = normalizeResource(target.group ?? "", target.resource);
    overrides.set(
      label,
      known
        ? { group: known.group, resource: known.resource }
        : { group: target.group ?? "", resource: target.resource.toLowerCase() },
    );
  }
  let template: GoTemplate | null = null;
  let templateLabel: RegExp | null = null;
  const templateSource = raw.resources?.template ?? "";
  if (templateSource !== "") {
    const parsed = parseGoTemplate(templateSource, RESOURCE_FIELDS);
    if (!parsed.ok) errors.push(`${where}.resources.template: ${parsed.error}`);
    else {
      template = parsed.template;
      // The labels the template makes, read back: each field a lazy group (label names never
      // hold "@", so the placeholders cannot clash).
      const G = "@GROUP@";
      const R = "@RESOURCE@";
      const shape = template.execute({ Group: G, Resource: R });
      if (!shape.includes(R)) {
        errors.push(
          `${where}.resources.template: must use <<.Resource>> (${JSON.stringify(templateSource)})`,
        );
      } else {
        const seen = new Set<string>();
        const pattern = shape
          .split(/(@GROUP@|@RESOURCE@)/)
          .map((part) => {
            const name = part === G ? "group" : part === R ? "resource" : null;
            if (name === null) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
            // A field used twice must name the same thing both times.
            if (seen.has(name)) return `\\k<${name}>`;
            seen.add(name);
            return `(?<${name}>.+?)`;
          })
          .join("");
        templateLabel = new RegExp(`^${pattern}$`);
      }
    }
  }
  const query = parseGoTemplate(raw.metricsQuery, QUERY_FIELDS);
  if (!query.ok) errors.push(`${where}.metricsQuery: ${query.error}`);
  if (errors.length > before || !query.ok) return null;
  return {
    where,
    seriesQuery: raw.seriesQuery,
    filters,
    nameMatches,
    nameAs,
    overrides,
    template,
    templateLabel,
    namespaced: external ? (raw.resources?.namespaced ?? true) : true,
    metricsQuery: query.template,
  };
}

function zodPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path)
    out += typeof seg === "number" ? `[${seg}]` : out === "" ? String(seg) : `.${String(seg)}`;
  return out;
}

/** Reads a configuration file's text (YAML or JSON). */
export function readAdapterConfig(text: string): ConfigResult {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    return { ok: false, errors: [`not valid YAML: ${(error as Error).message}`] };
  }
  const parsed = configSchema.safeParse(data ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((issue) => {
        const path = zodPath(issue.path);
        const message =
          issue.code === "unrecognized_keys"
            ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`
            : issue.message;
        return path ? `${path}: ${message}` : message;
      }),
    };
  }
  const errors: string[] = [];
  const compile = (list: z.output<typeof ruleSchema>[] | null | undefined, key: string) =>
    (list ?? []).flatMap(
      (raw, i) => compileRule(raw, `${key}[${i}]`, key === "externalRules", errors) ?? [],
    );
  const rules = compile(parsed.data.rules, "rules");
  const externalRules = compile(parsed.data.externalRules, "externalRules");
  if (errors.length > 0) return { ok: false, errors };
  const warnings =
    parsed.data.resourceRules !== undefined
      ? ["resourceRules: not served (metrics.k8s.io comes from the cluster's metrics server)"]
      : [];
  return { ok: true, config: { rules, externalRules, warnings } };
}

/**
 * The rules of the seed book's walkthrough: the Pods metric `http_requests` is the per-second
 * rate of each pod's `http_requests_total` over a minute.
 */
export const BOOK_ADAPTER_CONFIG = `rules:
- seriesQuery: 'http_requests_total{namespace!="",pod!=""}'
  resources:
    overrides:
      namespace: {resource: "namespace"}
      pod: {resource: "pod"}
  name:
    matches: "^(.*)_total"
    as: "\${1}"
  metricsQuery: "sum(rate(<<.Series>>{<<.LabelMatchers>>}[1m])) by (<<.GroupBy>>)"
`;
