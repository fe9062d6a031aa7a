// Shared request/response shapes of the API server handler core: a fetch-style handler that
// tests drive in-process and that `http.ts` binds to sockets.
import type { UserInfo } from "./auth/user.js";

/** One HTTP request as the handler sees it (path already split from the query). */
export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** Every value of each header as sent, where one may repeat (Impersonate-Group); else unset. */
  headerValues?: Record<string, readonly string[] | undefined>;
  body?: Buffer;
  /** Who sent it, once authentication has run (src/apiserver/auth). */
  user?: UserInfo;
}

/** A JSON body, a raw body, or a watch stream (one JSON line per event). */
export type ApiResponse =
  | {
      status: number;
      headers?: Record<string, string>;
      body: unknown /* JSON-serialized */;
      /** The bytes of `JSON.stringify(body)` in chunks, from kept encodings (encoding.ts). */
      encode?: () => Buffer[];
    }
  | { status: number; headers?: Record<string, string>; raw: Buffer | string }
  | {
      status: number;
      headers?: Record<string, string>;
      stream: AsyncIterable<string | Buffer>;
      close(): void;
      /** Whether the stream ended because its reader fell behind (its connection is dropped). */
      unresponsive?: () => boolean;
      /** Runs `fn` when the stream ends (at once if it has). */
      onEnd?: (fn: () => void) => void;
    };
