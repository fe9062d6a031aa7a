// The durable store of `horizon up --data-dir DIR`: objects and the resourceVersion counter
// survive kill -9 and restart, and an acknowledged write is never lost (the issue's "durable
// store"; upstream keeps them in etcd, k3s in SQLite). Dependency-free: an append-only journal
// of JSON lines, written and fsynced synchronously by the store before a write is applied,
// plus a snapshot that compaction rewrites (temp file + fsync + rename) so the journal stays
// short. The objects themselves live in the store's maps; this module keeps references only.
//
// Files in DIR:
//   LOCK            the pid of the server using DIR (two servers must not share a journal)
//   snapshot.jsonl  a header line {format, resourceVersion, incarnations}, then one object a line
//   journal.jsonl   one change a line: {rv, type:"put", object, incarnation?} or
//                   {rv, type:"delete", kind, namespace, name}; lines at or below the
//                   snapshot's resourceVersion are already in it (a compaction cut short)
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../api/types.js";
import type { StoreChange, StoreState } from "../registry/store.js";

export const LOCK_FILE = "LOCK";
export const SNAPSHOT_FILE = "snapshot.jsonl";
export const JOURNAL_FILE = "journal.jsonl";
const FORMAT = 1;

/** Journal lines after which the next write schedules a compaction. */
export const DEFAULT_COMPACT_EVERY = 10_000;

export type JournalRecord =
  | { rv: number; type: "put"; object: KubeObject; incarnation?: number }
  | { rv: number; type: "delete"; kind: string; namespace: string; name: string };

interface SnapshotHeader {
  format: number;
  resourceVersion: number;
  incarnations: [string, number][];
}

export interface DataDirOptions {
  /** Compact after this many journal lines (default 10,000); 0 never compacts by itself. */
  compactEvery?: number;
  /** The pid written to LOCK (tests); default process.pid. */
  pid?: number;
}

export type DataDirResult = { ok: true; value: DataDir } | { ok: false; error: string };

/**
 * `kind/namespace/name`, as the store names objects: stored objects of namespaced kinds carry
 * their namespace and others none, so no scope lookup is needed (a custom kind's scope is
 * known only once its CRD is loaded).
 */
export function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ""}/${name}`;
}

/**
 * Opens (creating if needed) and locks a data directory and loads what it holds. Expected
 * failures (locked by a live server, unreadable or corrupt files) are returned as data.
 */
export function openDataDir(dir: string, options: DataDirOptions = {}): DataDirResult {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    restrictModes(dir);
  } catch (error) {
    return { ok: false, error: `--data-dir ${dir}: ${(error as Error).message}` };
  }
  const locked = acquireLock(dir, options.pid ?? process.pid);
  if (!locked.ok) return locked;
  let loaded: Loaded;
  try {
    const result = load(dir);
    if (!result.ok) {
      releaseLock(dir);
      return result;
    }
    loaded = result.value;
  } catch (error) {
    releaseLock(dir);
    return { ok: false, error: `--data-dir ${dir}: ${(error as Error).message}` };
  }
  return {
    ok: true,
    value: new DataDir(dir, loaded, options.compactEvery ?? DEFAULT_COMPACT_EVERY),
  };
}

interface Loaded {
  objects: Map<string, KubeObject>;
  incarnations: Map<string, number>;
  resourceVersion: number;
  /** Bytes of the journal's whole lines (a torn tail beyond them is cut off). */
  journalBytes: number;
  journalLines: number;
  /** Whether the directory held any state (a fresh one gets the scenario's objects). */
  fresh: boolean;
}

export class DataDir {
  readonly dir: string;
  /** True when the directory held no state before this run. */
  readonly fresh: boolean;
  readonly #objects: Map<string, KubeObject>;
  readonly #incarnations: Map<string, number>;
  readonly #compactEvery: number;
  #resourceVersion: number;
  #journalFd: number | null;
  #journalLines: number;
  #compactScheduled = false;
  #closed = false;

  constructor(dir: string, loaded: Loaded, compactEvery: number) {
    this.dir = dir;
    this.fresh = loaded.fresh;
    this.#objects = loaded.objects;
    this.#incarnations = loaded.incarnations;
    this.#resourceVersion = loaded.resourceVersion;
    this.#compactEvery = compactEvery;
    this.#journalLines = loaded.journalLines;
    this.#journalFd = openSync(join(dir, JOURNAL_FILE), "a", 0o600);
    // A torn last line (kill -9 or power loss mid-append) is not part of the history; cut it
    // off so the next append starts on a line of its own.
    if (fstatSync(this.#journalFd).size !== loaded.journalBytes) {
      ftruncateSync(this.#journalFd, loaded.journalBytes);
      fsyncSync(this.#journalFd);
    }
  }

  /** What the store starts from. */
  state(): StoreState {
    return {
      resourceVersion: this.#resourceVersion,
      objects: [...this.#objects.values()],
      incarnations: [...this.#incarnations],
    };
  }

  /** The newest resourceVersion journaled. */
  resourceVersion(): number {
    return this.#resourceVersion;
  }

  /** Lines in the journal (since the last compaction). */
  journalLines(): number {
    return this.#journalLines;
  }

  /**
   * The store's journal hook: appends the change and fsyncs before returning, so a write the
   * API server acknowledged is on disk. Throws (the store then refuses the write) on I/O errors.
   */
  readonly journal = (change: StoreChange): void => {
    if (this.#journalFd === null) throw new Error(`data directory ${this.dir} is closed`);
    const object = change.object;
    const key = objectKey(object.kind, object.metadata.namespace, object.metadata.name);
    const record: JournalRecord =
      change.type === "DELETED"
        ? {
            rv: change.rv,
            type: "delete",
            kind: object.kind,
            namespace: object.metadata.namespace ?? "",
            name: object.metadata.name,
          }
        : change.incarnation !== undefined
          ? { rv: change.rv, type: "put", object, incarnation: change.incarnation }
          : { rv: change.rv, type: "put", object };
    writeAll(this.#journalFd, `${JSON.stringify(record)}\n`);
    // fdatasync: the appended bytes and the new file size, without the mtime.
    fdatasyncSync(this.#journalFd);
    this.#resourceVersion = change.rv;
    this.#journalLines++;
    if (change.type === "DELETED") this.#objects.delete(key);
    else this.#objects.set(key, object);
    if (change.incarnation !== undefined) {
      this.#incarnations.set(key, change.incarnation);
    }
    if (
      this.#compactEvery > 0 &&
      this.#journalLines >= this.#compactEvery &&
      !this.#compactScheduled
    ) {
      // After the current request: compaction rewrites every object.
      this.#compactScheduled = true;
      setImmediate(() => {
        this.#compactScheduled = false;
        if (!this.#closed && this.#journalLines >= this.#compactEvery) this.compact();
      });
    }
  };

  /**
   * Writes every object into a new snapshot (temp file, fsync, rename, fsync of the
   * directory), then empties the journal. A crash in between leaves journal lines the
   * snapshot already holds; loading skips them by resourceVersion.
   */
  compact(): void {
    if (this.#journalFd === null) throw new Error(`data directory ${this.dir} is closed`);
    const temp = join(this.dir, `${SNAPSHOT_FILE}.tmp`);
    const fd = openSync(temp, "w", 0o600);
    try {
      // A temp file left by a crash keeps its old mode.
      fchmodSync(fd, 0o600);
      const header: SnapshotHeader = {
        format: FORMAT,
        resourceVersion: this.#resourceVersion,
        incarnations: [...this.#incarnations],
      };
      const lines: string[] = [JSON.stringify(header)];
      let size = lines[0]!.length;
      for (const object of this.#objects.values()) {
        const line = JSON.stringify(object);
        lines.push(line);
        size += line.length;
        // Bounded chunks: one string of every object could pass V8's string size limit.
        if (size > 4 << 20) {
          writeAll(fd, `${lines.join("\n")}\n`);
          lines.length = 0;
          size = 0;
        }
      }
      if (lines.length > 0) writeAll(fd, `${lines.join("\n")}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, join(this.dir, SNAPSHOT_FILE));
    syncDirectory(this.dir);
    ftruncateSync(this.#journalFd, 0);
    fsyncSync(this.#journalFd);
    this.#journalLines = 0;
  }

  /** Compacts, closes the journal and releases the lock (a clean stop). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#journalLines > 0) this.compact();
    } finally {
      if (this.#journalFd !== null) closeSync(this.#journalFd);
      this.#journalFd = null;
      releaseLock(this.dir);
    }
  }
}

/**
 * The directory holds every object and the server's credentials: only its owner may read it
 * (0700, every file 0600), existing ones included (symbolic links are left alone).
 */
function restrictModes(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) restrictModes(path);
    else if (entry.isFile() && (lstatSync(path).mode & 0o777) !== 0o600) chmodSync(path, 0o600);
  }
}

function writeAll(fd: number, text: string): void {
  const buffer = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
}

/** Makes a rename durable (POSIX: the directory entry is data of the directory). */
function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, "r");
  } catch {
    return; // platforms that cannot open directories
  }
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename is then as durable as they allow.
  } finally {
    closeSync(fd);
  }
}

type Result<T> = { ok: true; value: T } | { ok: false; error: string };

function load(dir: string): Result<Loaded> {
  const objects = new Map<string, KubeObject>();
  const incarnations = new Map<string, number>();
  let resourceVersion = 1;
  let fresh = true;
  // A temp snapshot is a compaction that did not finish: the journal still has its changes.
  rmSync(join(dir, `${SNAPSHOT_FILE}.tmp`), { force: true });
  const snapshotPath = join(dir, SNAPSHOT_FILE);
  if (existsSync(snapshotPath)) {
    fresh = false;
    const lines = readFileSync(snapshotPath, "utf8").split("\n");
    // Renamed into place only after its fsync, so every line is whole.
    let header: SnapshotHeader;
    try {
      header = JSON.parse(lines[0]!) as SnapshotHeader;
    } catch {
      return { ok: false, error: `${snapshotPath}: not a Horizon snapshot (bad header line)` };
    }
    if (header.format !== FORMAT) {
      return {
        ok: false,
        error: `${snapshotPath}: snapshot format ${header.format}, this version reads ${FORMAT}`,
      };
    }
    resourceVersion = header.resourceVersion;
    for (const [identity, count] of header.incarnations) incarnations.set(identity, count);
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === "") continue;
      let object: KubeObject;
      try {
        object = JSON.parse(line) as KubeObject;
      } catch {
        return { ok: false, error: `${snapshotPath}:${i + 1}: corrupt snapshot line` };
      }
      objects.set(objectKey(object.kind, object.metadata.namespace, object.metadata.name), object);
    }
  }
  const snapshotVersion = resourceVersion;
  const journalPath = join(dir, JOURNAL_FILE);
  let journalBytes = 0;
  let journalLines = 0;
  if (existsSync(journalPath)) {
    const buffer = readFileSync(journalPath);
    if (buffer.length > 0) fresh = false;
    let start = 0;
    let lineNumber = 0;
    while (start < buffer.length) {
      const end = buffer.indexOf(0x0a, start);
      lineNumber++;
      // No newline: the append was cut short, so it was never acknowledged.
      if (end < 0) break;
      let record: JournalRecord;
      try {
        record = JSON.parse(buffer.toString("utf8", start, end)) as JournalRecord;
      } catch {
        // Appends are sequential and fsynced one by one: only the last line can be torn.
        if (end === buffer.length - 1) break;
        return { ok: false, error: `${journalPath}:${lineNumber}: corrupt journal line` };
      }
      start = end + 1;
      journalBytes = start;
      journalLines++;
      if (record.rv <= snapshotVersion) continue;
      if (record.type === "delete") {
        objects.delete(objectKey(record.kind, record.namespace, record.name));
      } else {
        const { kind, metadata } = record.object;
        const key = objectKey(kind, metadata.namespace, metadata.name);
        objects.set(key, record.object);
        if (record.incarnation !== undefined) incarnations.set(key, record.incarnation);
      }
      resourceVersion = Math.max(resourceVersion, record.rv);
    }
  }
  return {
    ok: true,
    value: { objects, incarnations, resourceVersion, journalBytes, journalLines, fresh },
  };
}

function lockPath(dir: string): string {
  return join(dir, LOCK_FILE);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes DIR/LOCK: written under a temp name and hard-linked into place (atomic, fails when it
 * exists). A lock left by a dead process (kill -9) is taken over.
 */
function acquireLock(dir: string, pid: number): Result<void> {
  const path = lockPath(dir);
  const temp = join(dir, `${LOCK_FILE}.${pid}.${process.hrtime.bigint()}`);
  writeFileSync(temp, `${pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(temp, path);
        return { ok: true, value: undefined };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          return { ok: false, error: `cannot lock ${path}: ${(error as Error).message}` };
        }
      }
      let holder = Number.NaN;
      try {
        holder = Number.parseInt(readFileSync(path, "utf8"), 10);
      } catch {
        continue; // removed meanwhile: try again
      }
      if (Number.isInteger(holder) && holder > 0 && processAlive(holder)) {
        return {
          ok: false,
          error: `data directory ${dir} is in use by another horizon (pid ${holder}); stop it or use another --data-dir`,
        };
      }
      // Stale (its process is gone) or unreadable: take it over.
      try {
        unlinkSync(path);
      } catch {
        // another starter removed it first
      }
    }
    return { ok: false, error: `cannot lock ${path}: it keeps changing` };
  } finally {
    rmSync(temp, { force: true });
  }
}

function releaseLock(dir: string): void {
  rmSync(lockPath(dir), { force: true });
}
