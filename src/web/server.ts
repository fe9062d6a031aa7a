// The dashboard's HTTP server: the page and its bundle (dist/dashboard, built by
// scripts/build-web.mjs), the JSON API and a server-sent-events stream, all behind the API's
// bearer token. A browser logs in once, with the one-time link `horizon up` prints or by
// pasting the token into the login form, and then holds an HttpOnly session cookie: the token
// never stays in a URL, the page's script never sees it. Scripts send `Authorization: Bearer`.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import type { DashboardData } from "./data.js";
import { parseWhatIfEdits } from "./whatif.js";

export const SESSION_COOKIE = "horizon_session";
/** Sessions end after this long (the one-time link or the token logs in again). */
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** A comment line on idle streams, so proxies and browsers keep them open. */
const HEARTBEAT_MS = 15_000;

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Who may use the dashboard: the token's holder, and browsers that logged in with it. */
export class DashboardAuth {
  private readonly tokenDigest: Buffer;
  private readonly tickets = new Set<string>();
  private readonly sessions = new Map<string, number>();

  constructor(
    token: string,
    private readonly now: () => number = Date.now,
  ) {
    if (token === "") throw new Error("the dashboard token must not be empty");
    this.tokenDigest = digest(token);
  }

  /** A login ticket valid once (the path and query of the one-time login link). */
  issueLoginPath(): string {
    const ticket = randomBytes(24).toString("base64url");
    this.tickets.add(ticket);
    return `/login?ticket=${ticket}`;
  }

  checkToken(token: string): boolean {
    return timingSafeEqual(digest(token), this.tokenDigest);
  }

  /** Consumes a ticket: true the first time only. */
  redeemTicket(ticket: string): boolean {
    return this.tickets.delete(ticket);
  }

  newSession(): string {
    const id = randomBytes(32).toString("base64url");
    this.sessions.set(id, this.now() + SESSION_TTL_MS);
    return id;
  }

  endSession(id: string): void {
    this.sessions.delete(id);
  }

  /** The request's Bearer token or session cookie is valid. */
  authenticated(req: IncomingMessage): boolean {
    const header = req.headers.authorization;
    if (header?.startsWith("Bearer ")) return this.checkToken(header.slice("Bearer ".length));
    const id = sessionOf(req);
    if (id === null) return false;
    const expires = this.sessions.get(id);
    if (expires === undefined) return false;
    if (expires <= this.now()) {
      this.sessions.delete(id);
      return false;
    }
    return true;
  }
}

function sessionOf(req: IncomingMessage): string | null {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=");
  }
  return null;
}

/** Where the front-end bundle is: dist/dashboard under the package root. */
export function defaultAssetsDir(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return join(dir, "dist", "dashboard");
}

export interface DashboardHandlerOptions {
  data: DashboardData;
  auth: DashboardAuth;
  /** The built bundle (app.js, app.css); default dist/dashboard of the package. */
  assetsDir?: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  // Everything comes from this server; no inline script (uPlot sets inline styles).
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
};

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    ...SECURITY_HEADERS,
    ...headers,
  });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, `${JSON.stringify(value)}\n`, "application/json");
}

const HTML = "text/html; charset=utf-8";

function loginPage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Horizon dashboard: log in</title><meta name="viewport" content="width=device-width"><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color-scheme:light dark}input{font:inherit;width:100%;box-sizing:border-box;margin:.5rem 0;padding:.4rem}button{font:inherit;padding:.4rem 1rem}</style></head><body><h1>Horizon dashboard</h1><p>${message}</p><form method="post" action="/login"><label for="token">Bearer token (the <code>token</code> of the kubeconfig <code>horizon up</code> wrote)</label><input id="token" name="token" type="password" autocomplete="current-password" autofocus required><button type="submit">Log in</button></form></body></html>`;
}

const INDEX = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Horizon dashboard</title><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/app.css"></head><body><div id="app"></div><script type="module" src="/assets/app.js"></script></body></html>`;

/**
 * The request's body, or null above `limit` bytes. The rest of a body too large is read and
 * dropped, not destroyed with the socket, so the caller's 413 reaches the client; the answer
 * then closes the connection (`Connection: close`).
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(null));
  });
}

function sessionCookie(id: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}`;
}

export function createDashboardHandler(options: DashboardHandlerOptions): Handler {
  const { data, auth } = options;
  const assetsDir = options.assetsDir ?? defaultAssetsDir();
  const assets: Record<string, string> = {
    "/assets/app.js": "text/javascript; charset=utf-8",
    "/assets/app.css": "text/css; charset=utf-8",
  };

  const login = (res: ServerResponse) => {
    send(res, 303, "", "text/plain", {
      Location: "/",
      "Set-Cookie": sessionCookie(auth.newSession(), SESSION_TTL_MS / 1000),
    });
  };

  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    const method = req.method ?? "GET";

    if (path === "/login") {
      if (method === "GET") {
        const ticket = url.searchParams.get("ticket");
        if (ticket !== null && auth.redeemTicket(ticket)) return login(res);
        const message =
          ticket === null
            ? "Paste the API's bearer token to log in."
            : "This login link was already used (each works once). Paste the API's bearer token instead.";
        return send(res, 401, loginPage(message), HTML);
      }
      if (method === "POST") {
        void readBody(req, 4096).then((body) => {
          const token = body === null ? null : new URLSearchParams(body).get("token");
          if (token !== null && auth.checkToken(token)) return login(res);
          send(res, 401, loginPage("That token is not valid. Try again."), HTML);
        });
        return;
      }
      return send(res, 405, "405 method not allowed\n", "text/plain", { Allow: "GET, POST" });
    }
    if (path === "/logout" && method === "POST") {
      const id = sessionOf(req);
      if (id !== null) auth.endSession(id);
      return send(res, 303, "", "text/plain", {
        Location: "/login",
        "Set-Cookie": sessionCookie("", 0),
      });
    }

    if (!auth.authenticated(req)) {
      if (path.startsWith("/api/")) {
        return json(res, 401, { error: "Unauthorized: log in, or send Authorization: Bearer" });
      }
      return send(res, 401, loginPage("Log in to see the dashboard."), HTML);
    }
    const whatIfPath = /^\/api\/v1\/namespaces\/([^/]+)\/hpas\/([^/]+)\/whatif$/.exec(path);
    if (whatIfPath) {
      if (method !== "POST") {
        return send(res, 405, "405 method not allowed\n", "text/plain", { Allow: "POST" });
      }
      // JSON only: a cross-site form cannot send it (with the SameSite cookie, no CSRF).
      if (!(req.headers["content-type"] ?? "").startsWith("application/json")) {
        return json(res, 415, { error: "the body must be application/json" });
      }
      void readBody(req, 64 * 1024).then(async (body) => {
        if (body === null) {
          res.setHeader("Connection", "close");
          return json(res, 413, { error: "the body is larger than 64 KiB" });
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch (error) {
          return json(res, 400, { error: `the body is not JSON: ${(error as Error).message}` });
        }
        const namespace = decodeURIComponent(whatIfPath[1]!);
        const name = decodeURIComponent(whatIfPath[2]!);
        const edits = parseWhatIfEdits(parsed, name);
        if (!edits.ok) {
          const { status, error, causes } = edits;
          return json(res, status, causes ? { error, causes } : { error });
        }
        const running = data.whatIf(namespace, name, edits.edits);
        if (running === null) {
          return json(res, 501, { error: "this dashboard has no what-if runs" });
        }
        try {
          const answer = await running;
          if (!answer.ok) {
            return json(res, answer.status, { error: answer.error, causes: answer.causes ?? [] });
          }
          return json(res, 200, answer.value);
        } catch (error) {
          return json(res, 500, { error: `the what-if run failed: ${(error as Error).message}` });
        }
      });
      return;
    }
    if (method !== "GET" && method !== "HEAD") {
      return send(res, 405, "405 method not allowed\n", "text/plain", { Allow: "GET, HEAD" });
    }

    const contentType = assets[path];
    if (contentType !== undefined) {
      const file = join(assetsDir, path.slice("/assets/".length));
      if (!existsSync(file)) {
        return send(
          res,
          503,
          `the dashboard bundle is not built (${file} is missing): run npm run build:web\n`,
          "text/plain",
        );
      }
      return send(res, 200, readFileSync(file), contentType);
    }
    if (path === "/api/v1/hpas") return json(res, 200, data.overview());
    if (path === "/api/v1/events") return stream(req, res, data);
    const match = /^\/api\/v1\/namespaces\/([^/]+)\/hpas\/([^/]+)(?:\/syncs\/([^/]+))?$/.exec(path);
    if (match) {
      const namespace = decodeURIComponent(match[1]!);
      const name = decodeURIComponent(match[2]!);
      if (match[3] === undefined) {
        const detail = data.detail(namespace, name);
        if (!detail) return json(res, 404, { error: `no HPA ${namespace}/${name}` });
        return json(res, 200, detail);
      }
      const seq = Number(match[3]);
      if (!Number.isInteger(seq)) {
        return json(res, 400, { error: `sync: must be an integer, got "${match[3]}"` });
      }
      const sync = data.sync(namespace, name, seq);
      if (!sync) {
        return json(res, 404, {
          error: `no sync ${seq} of ${namespace}/${name} (only the last ${data.capacity} are kept)`,
        });
      }
      return json(res, 200, sync);
    }
    if (path.startsWith("/api/")) return json(res, 404, { error: `no such endpoint ${path}` });
    // The single-page app answers every other path (/, /hpas/ns/name, ...).
    return send(res, 200, INDEX, HTML);
  };
}

/** text/event-stream of the data's changes until the client goes away. */
function stream(req: IncomingMessage, res: ServerResponse, data: DashboardData): void {
  res.writeHead(200, {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-store",
    Connection: "keep-alive",
    ...SECURITY_HEADERS,
  });
  res.flushHeaders();
  res.write(": connected\n\n");
  const off = data.subscribe((event, value) => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(value)}\n\n`);
  });
  const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), HEARTBEAT_MS);
  heartbeat.unref();
  const end = () => {
    clearInterval(heartbeat);
    off();
  };
  req.on("close", end);
  res.on("close", end);
}

export interface DashboardServerOptions extends DashboardHandlerOptions {
  host: string;
  port: number;
}

export interface RunningDashboard {
  /** e.g. http://127.0.0.1:8086 */
  url: string;
  /** A fresh one-time login link. */
  loginUrl(): string;
  close(): Promise<void>;
}

export async function startDashboardServer(
  options: DashboardServerOptions,
): Promise<RunningDashboard> {
  const handler = createDashboardHandler(options);
  const server: Server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    loginUrl: () => `${url}${options.auth.issueLoginPath()}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Event streams never end by themselves.
        server.closeAllConnections();
      }),
  };
}
