// Decision trace → structured explanation → text (`horizon explain`) or HTML (the report).
export * from "./explanation.js";
export { formatNumber } from "./format.js";
export { escapeHtml, explanationHtml, explanationSummary } from "./html.js";
export { explanationNote, explanationText, outcomeText } from "./text.js";
