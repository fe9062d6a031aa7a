// The part of Go's text/template that prometheus-adapter's configurations use, with its `<<`
// `>>` delimiters: text, field actions (`<<.Series>>`), `<<index .Map "key">>`, and the
// whitespace-trimming markers (`<<- ` and ` ->>`). Templates are checked when the configuration is
// read: an unclosed action, an unknown field or any other construct (pipelines, range, if) is
// an error there, not at query time.

export type TemplateData = Record<string, string | string[] | Record<string, string>>;

type Part =
  | { kind: "text"; text: string }
  | { kind: "field"; name: string }
  | { kind: "index"; name: string; key: string };

export interface GoTemplate {
  readonly source: string;
  execute(data: TemplateData): string;
}

/** Parses `source`; `fields` are the names `.Field` may use. */
export function parseGoTemplate(
  source: string,
  fields: readonly string[],
): { ok: true; template: GoTemplate } | { ok: false; error: string } {
  const parts: Part[] = [];
  let rest = source;
  let trimNext = false;
  while (rest.length > 0) {
    const open = rest.indexOf("<<");
    let text = open === -1 ? rest : rest.slice(0, open);
    if (trimNext) text = text.replace(/^\s+/, "");
    trimNext = false;
    if (open === -1) {
      if (text) parts.push({ kind: "text", text });
      break;
    }
    let body = rest.slice(open + 2);
    if (/^-\s/.test(body)) {
      text = text.replace(/\s+$/, "");
      body = body.slice(1);
    }
    if (text) parts.push({ kind: "text", text });
    const close = body.indexOf(">>");
    if (close === -1) return { ok: false, error: `unclosed action in ${JSON.stringify(source)}` };
    let action = body.slice(0, close);
    if (/\s-$/.test(action)) {
      action = action.slice(0, -1);
      trimNext = true;
    }
    rest = body.slice(close + 2);
    action = action.trim();
    const field = /^\.([A-Za-z_]\w*)$/.exec(action);
    const index = /^index\s+\.([A-Za-z_]\w*)\s+"((?:[^"\\]|\\.)*)"$/.exec(action);
    const name = field?.[1] ?? index?.[1];
    if (name === undefined) {
      return {
        ok: false,
        error: `unsupported action <<${action}>> in ${JSON.stringify(source)} (supported: <<.Field>> and <<index .Field "key">>)`,
      };
    }
    if (!fields.includes(name)) {
      return {
        ok: false,
        error: `can't evaluate field ${name} in ${JSON.stringify(source)} (fields: ${fields.join(", ")})`,
      };
    }
    parts.push(
      index ? { kind: "index", name, key: JSON.parse(`"${index[2]}"`) } : { kind: "field", name },
    );
  }
  return {
    ok: true,
    template: {
      source,
      execute(data) {
        let out = "";
        for (const part of parts) {
          if (part.kind === "text") out += part.text;
          else {
            const value = data[part.name];
            if (part.kind === "index") {
              out +=
                value && !Array.isArray(value) && typeof value === "object"
                  ? (value[part.key] ?? "")
                  : "";
            } else if (Array.isArray(value))
              out += `[${value.join(" ")}]`; // as Go prints a slice
            else if (typeof value === "string") out += value;
          }
        }
        return out;
      },
    },
  };
}
