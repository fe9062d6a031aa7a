// `horizon up --prometheus [--adapter-config FILE]`'s flags, read into the options of the
// Prometheus stack that src/up/prometheus.ts starts.
import { readFileSync } from "node:fs";
import { parseDuration } from "../api/duration.js";
import { parseBindAddress } from "../controller-manager/options.js";
import { BOOK_ADAPTER_CONFIG, readAdapterConfig } from "../prometheus/adapter-config.js";
import type { PrometheusStackOptions } from "../up/prometheus.js";

export interface PrometheusFlags {
  prometheus?: boolean;
  prometheusScrapeInterval?: string;
  prometheusBindAddress?: string;
  adapterConfig?: string;
}

/** Prometheus' address by default: a free loopback port each run (the banner prints it). */
export const DEFAULT_PROMETHEUS_BIND_ADDRESS = "127.0.0.1:0";

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The flags as options; undefined when neither --prometheus nor --adapter-config is given. */
export function parsePrometheusFlags(
  flags: PrometheusFlags,
): Parsed<PrometheusStackOptions | undefined> {
  if (!flags.prometheus && flags.adapterConfig === undefined) {
    for (const [flag, given] of [
      ["--prometheus-scrape-interval", flags.prometheusScrapeInterval],
      ["--prometheus-bind-address", flags.prometheusBindAddress],
    ] as const) {
      if (given !== undefined)
        return { ok: false, error: `${flag}: has no effect without --prometheus` };
    }
    return { ok: true, value: undefined };
  }
  if (!flags.prometheus) {
    return {
      ok: false,
      error: "--adapter-config: needs --prometheus (the adapter queries the Prometheus it starts)",
    };
  }
  const interval = flags.prometheusScrapeInterval ?? "15s";
  // Prometheus durations: an integer and a unit.
  if (
    !/^\d+(ms|s|m|h)$/.test(interval) ||
    parseDuration(interval).ok === false ||
    Number.parseInt(interval, 10) === 0
  ) {
    return {
      ok: false,
      error: `--prometheus-scrape-interval: expected a positive duration such as 15s or 1m, got "${interval}"`,
    };
  }
  const bind = parseBindAddress(
    "prometheus-bind-address",
    flags.prometheusBindAddress ?? DEFAULT_PROMETHEUS_BIND_ADDRESS,
  );
  if (!bind.ok || bind.value === null) {
    return {
      ok: false,
      error: `--prometheus-bind-address: must be HOST:PORT (port 0: a free one), got "${flags.prometheusBindAddress}"`,
    };
  }
  let adapter: PrometheusStackOptions["adapter"];
  if (flags.adapterConfig !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.adapterConfig, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        ok: false,
        error: `--adapter-config ${flags.adapterConfig}: ${code === "ENOENT" ? "no such file" : (error as Error).message}`,
      };
    }
    const read = readAdapterConfig(text);
    if (!read.ok)
      return {
        ok: false,
        error: read.errors.map((e) => `--adapter-config ${flags.adapterConfig}: ${e}`).join("\n"),
      };
    adapter = { config: read.config, source: flags.adapterConfig };
  } else {
    const read = readAdapterConfig(BOOK_ADAPTER_CONFIG);
    if (!read.ok)
      throw new Error(`the book's adapter rules do not read: ${read.errors.join("; ")}`);
    adapter = { config: read.config, source: "the book's rules (pods/http_requests)" };
  }
  return {
    ok: true,
    value: {
      prometheus: true,
      scrapeInterval: interval,
      bindAddress: bind.value,
      adapter,
      relistIntervalMs: 5_000,
    },
  };
}
