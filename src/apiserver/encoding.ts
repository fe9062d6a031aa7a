// Stored objects' JSON as served, made once per stored version and shared by every GET, LIST
// and watch event that sends it (kube-apiserver's watch cache keeps one serialization per
// object and encoding: cachingObject). The bytes are UTF-8 Buffers, outside the JS heap: a
// LIST is written as its items' Buffers (no list-sized string to build, measure and encode),
// and a change fanned out to N watchers is serialized once.

import type { KubeObject } from "../api/types.js";
import { type ObjectStore, storeNamespaceOf } from "../registry/store.js";

/** How the object is sent: whole (GET, watch) or as a typed list's item (no kind/apiVersion). */
export type EncodedForm = "object" | "item";

/**
 * One stored name's bytes. The entry stays while the name exists and is refilled for each new
 * version: a Map entry deleted and re-added per change made the Map's tables churn, and their
 * dead copies kept replaced versions alive through scavenges (promoted, then collected only by
 * a mark-compact; ~2 MB/s of the soak's Services).
 */
interface Entry {
  /** The stored version the bytes are of; null once it is replaced, until it is asked for. */
  object: KubeObject | null;
  /** By `${apiVersion} ${form}`. */
  bytes: Map<string, Buffer> | null;
}

function keyOf(object: KubeObject): string {
  return `${object.kind}/${storeNamespaceOf(object)}/${object.metadata.name}`;
}

export class ObjectEncodings {
  readonly #store: ObjectStore;
  /** Only the stored versions: a change or deletion drops the old one's bytes. */
  readonly #entries = new Map<string, Entry>();

  constructor(store: ObjectStore) {
    this.#store = store;
    store.watch((event) => {
      const key = keyOf(event.object);
      const entry = this.#entries.get(key);
      if (entry === undefined) return;
      if (event.type === "DELETED") this.#entries.delete(key);
      else if (entry.object !== event.object) {
        entry.object = null;
        entry.bytes = null;
      }
    });
  }

  /**
   * The UTF-8 bytes of `JSON.stringify(present())` for `object` in `apiVersion`: kept while
   * `object` is the stored version (a replayed old version or a deleted object's final state is
   * encoded each time). `present` must depend only on the object, the apiVersion and the form.
   */
  bytes(object: KubeObject, apiVersion: string, form: EncodedForm, present: () => unknown): Buffer {
    const key = keyOf(object);
    let entry = this.#entries.get(key);
    let kept = entry?.object === object ? entry.bytes : null;
    if (kept === null) {
      const current = this.#store.get(object.kind, storeNamespaceOf(object), object.metadata.name);
      if (current !== object) return Buffer.from(JSON.stringify(present()));
      kept = new Map();
      if (entry === undefined) {
        entry = { object, bytes: kept };
        this.#entries.set(key, entry);
      } else {
        entry.object = object;
        entry.bytes = kept;
      }
    }
    const variant = `${apiVersion} ${form}`;
    let bytes = kept.get(variant);
    if (bytes === undefined) {
      const whole = form === "item" ? kept.get(`${apiVersion} object`) : undefined;
      bytes =
        (whole && itemOf(whole, object.kind, apiVersion)) ?? ownBytes(JSON.stringify(present()));
      kept.set(variant, bytes);
    }
    return bytes;
  }

  /** How many stored objects have bytes kept (for tests). */
  get size(): number {
    let size = 0;
    for (const entry of this.#entries.values()) if (entry.bytes !== null) size++;
    return size;
  }
}

/**
 * A list item's JSON from the whole object's, when the object's begins with its apiVersion and
 * kind (as stored objects' do): the item is the same members without those two.
 */
function itemOf(whole: Buffer, kind: string, apiVersion: string): Buffer | null {
  const head = `{"apiVersion":${JSON.stringify(apiVersion)},"kind":${JSON.stringify(kind)},`;
  const length = Buffer.byteLength(head);
  if (whole.length <= length || whole.toString("utf8", 0, length) !== head) return null;
  const item = Buffer.allocUnsafeSlow(whole.length - length + 1);
  item[0] = 0x7b; // {
  whole.copy(item, 1, length);
  return item;
}

/**
 * Kept bytes in their own memory: a small Buffer.from is a slice of an 8 KiB pool shared with
 * short-lived Buffers, and one kept slice keeps the whole pool (~49 MB for 11,000 kept
 * objects in bench:apiserver's RSS figure).
 */
function ownBytes(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const bytes = Buffer.allocUnsafeSlow(length);
  bytes.write(text, 0, length, "utf8");
  return bytes;
}
