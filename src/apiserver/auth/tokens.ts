// Service account tokens as kube-apiserver issues them for TokenRequest (bound tokens): an
// ES256-signed JWT with upstream's claims (iss, sub, aud, exp, iat, nbf, jti and the
// `kubernetes.io` claim naming the namespace, service account and bound object), and their
// authentication: signature, issuer, audience and expiry, then the account (and any bound object)
// must still exist with the uid the token names, as the token authenticator's validator checks.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomUUID,
} from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { jwtVerify, SignJWT } from "jose";
import { isRecord } from "../../api/json.js";
import type { KubeObject } from "../../api/types.js";
import { readIfExists, writeSecret } from "../tls.js";
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from "./user.js";

/** kube-apiserver's --service-account-issuer as kubeadm and k3s set it; also the API's audience. */
export const DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local";

/** Where a data directory keeps the signing key (k3s: server/tls/service.key). */
export const SERVICE_ACCOUNT_KEY_FILE = join("tls", "service.key");

const ALG = "ES256";

/** A bound object's identity, as the `kubernetes.io` claim carries it. */
export interface BoundObject {
  kind: "Pod" | "Secret";
  name: string;
  uid: string;
}

export interface IssueOptions {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  audiences: readonly string[];
  expirationSeconds: number;
  /** Epoch ms. */
  now: number;
  bound?: BoundObject;
}

/** Reads the objects a token names (the store). */
export type ObjectLookup = (
  kind: string,
  namespace: string,
  name: string,
) => KubeObject | undefined;

export class ServiceAccountTokens {
  readonly issuer: string;
  /** The audiences a token must name one of to authenticate to this API server (--api-audiences). */
  readonly apiAudiences: readonly string[];
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  readonly #keyId: string;

  constructor(options: { privateKey: KeyObject; issuer?: string }) {
    this.issuer = options.issuer ?? DEFAULT_ISSUER;
    this.apiAudiences = [this.issuer];
    this.#privateKey = options.privateKey;
    this.#publicKey = createPublicKey(options.privateKey);
    // Upstream's key id: the SHA-256 of the public key's DER, base64url.
    const der = this.#publicKey.export({ type: "spki", format: "der" });
    this.#keyId = createHash("sha256").update(der).digest("base64url");
  }

  /** A new signing key, kept in memory only. */
  static generate(): ServiceAccountTokens {
    return new ServiceAccountTokens({ privateKey: newKey() });
  }

  /** Signs a token; returns it with its expiry (epoch ms). */
  async issue(options: IssueOptions): Promise<{ token: string; expiresAt: number }> {
    const iat = Math.floor(options.now / 1000);
    const exp = iat + options.expirationSeconds;
    const claim: Record<string, unknown> = {
      namespace: options.namespace,
      serviceaccount: { name: options.serviceAccount.name, uid: options.serviceAccount.uid },
    };
    if (options.bound) {
      claim[options.bound.kind.toLowerCase()] = {
        name: options.bound.name,
        uid: options.bound.uid,
      };
    }
    const token = await new SignJWT({ "kubernetes.io": claim })
      .setProtectedHeader({ alg: ALG, kid: this.#keyId })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(options.namespace, options.serviceAccount.name))
      .setAudience([...options.audiences])
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.#privateKey);
    return { token, expiresAt: exp * 1000 };
  }

  /**
   * The user of a token this server signed, or null when it is not one (not a JWT, another
   * issuer or key, not for this API's audiences, expired) or names an account or bound object
   * that no longer exists as it did.
   */
  async authenticate(token: string, now: number, lookup: ObjectLookup): Promise<UserInfo | null> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.#publicKey, {
        algorithms: [ALG],
        issuer: this.issuer,
        audience: [...this.apiAudiences],
        currentDate: new Date(now),
        requiredClaims: ["exp", "sub"],
      }));
    } catch {
      return null;
    }
    const claim = payload["kubernetes.io"];
    if (!isRecord(claim) || typeof claim.namespace !== "string") return null;
    const namespace = claim.namespace;
    const account = ref(claim.serviceaccount);
    if (!account || payload.sub !== serviceAccountUsername(namespace, account.name)) return null;
    if (!sameObject(lookup("ServiceAccount", namespace, account.name), account.uid)) return null;
    const extra: Record<string, string[]> = {
      "authentication.kubernetes.io/credential-id": [`JTI=${String(payload.jti ?? "")}`],
    };
    for (const kind of ["Pod", "Secret"] as const) {
      const bound = ref(claim[kind.toLowerCase()]);
      if (claim[kind.toLowerCase()] === undefined) continue;
      if (!bound || !sameObject(lookup(kind, namespace, bound.name), bound.uid)) return null;
      const key = `authentication.kubernetes.io/${kind.toLowerCase()}`;
      extra[`${key}-name`] = [bound.name];
      extra[`${key}-uid`] = [bound.uid];
    }
    return {
      name: serviceAccountUsername(namespace, account.name),
      uid: account.uid,
      groups: serviceAccountGroups(namespace),
      extra,
    };
  }
}

function ref(value: unknown): { name: string; uid: string } | null {
  if (!isRecord(value) || typeof value.name !== "string" || typeof value.uid !== "string") {
    return null;
  }
  return { name: value.name, uid: value.uid };
}

/** The object exists and is the one the token was issued for (not deleted and recreated). */
function sameObject(object: KubeObject | undefined, uid: string): boolean {
  return object !== undefined && object.metadata.uid === uid && !object.metadata.deletionTimestamp;
}

function newKey(): KeyObject {
  return generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
}

/**
 * The signing key of a data directory: the one kept there (PKCS#8 PEM, 0600), else a new one
 * saved there, so tokens issued before a restart stay valid, as with kube-apiserver's
 * --service-account-key-file.
 */
export async function persistentServiceAccountTokens(
  dir: string,
): Promise<{ ok: true; value: ServiceAccountTokens } | { ok: false; error: string }> {
  const path = join(dir, SERVICE_ACCOUNT_KEY_FILE);
  try {
    const kept = await readIfExists(path);
    if (kept !== null) {
      return { ok: true, value: new ServiceAccountTokens({ privateKey: createPrivateKey(kept) }) };
    }
    const privateKey = newKey();
    await mkdir(join(dir, "tls"), { recursive: true, mode: 0o700 });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    await writeSecret(path, pem);
    return { ok: true, value: new ServiceAccountTokens({ privateKey }) };
  } catch (error) {
    return { ok: false, error: `--data-dir ${dir}: ${path}: ${(error as Error).message}` };
  }
}
