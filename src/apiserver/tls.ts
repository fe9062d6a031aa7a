// Serving certificates for `horizon up`: a self-signed CA and a server certificate it signs,
// made in-process with @peculiar/x509 over WebCrypto (no openssl binary). Clients trust the
// CA through the kubeconfig's `certificate-authority-data`, as with k3s/kind. In memory the CA
// is throwaway; with a data directory the CA and the token are kept there (as k3s keeps its
// CA and token across restarts), so the kubeconfig of an earlier run stays valid.
// Go's crypto/x509 (kubectl) matches only subjectAltNames, never the CN (Go ≥ 1.15), so every
// address clients dial must be a SAN.
import { createPrivateKey, KeyObject, randomBytes, webcrypto } from "node:crypto";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";

export interface ServingCertificate {
  /** PEM of the CA that signed `cert`; goes into `certificate-authority-data`. */
  caCert: string;
  /** PEM of the server certificate. */
  cert: string;
  /** PEM (PKCS#8) of the server certificate's private key. */
  key: string;
}

export interface CertificateOptions {
  /** IP addresses and DNS names the certificate is valid for; defaults to 127.0.0.1, ::1, localhost. */
  hosts?: readonly string[];
  /** Validity in days (default 365). */
  days?: number;
}

export type CertificateResult =
  | { ok: true; value: ServingCertificate }
  | { ok: false; error: string };

export const DEFAULT_CERT_HOSTS: readonly string[] = ["127.0.0.1", "::1", "localhost"];

/** The hosts a serving certificate needs when binding `address`: loopback names plus the address itself. */
export function certificateHosts(address: string): string[] {
  const hosts = [...DEFAULT_CERT_HOSTS];
  // Wildcard binds are dialled through some concrete address; loopback is covered already.
  if (address !== "0.0.0.0" && address !== "::" && address !== "") hosts.push(address);
  return [...new Set(hosts)];
}

export interface AuthorityOptions {
  /** Validity in days (default 365). */
  days?: number;
  /** Its subject's CN (default horizon-ca). */
  commonName?: string;
}

/** A CA that can sign serving certificates (its key is a secret: keep it 0600). */
export interface CertificateAuthority {
  caCert: string;
  caKey: string;
}

export type AuthorityResult =
  | { ok: true; value: CertificateAuthority }
  | { ok: false; error: string };

type X509 = typeof import("@peculiar/x509");

let x509Module: Promise<X509> | undefined;

/**
 * @peculiar/x509, loaded on first use (only `horizon up` over TLS needs it). Its dependency
 * injection (tsyringe) needs a Reflect metadata polyfill, imported first as its README asks.
 */
function loadX509(): Promise<X509> {
  x509Module ??= import("reflect-metadata").then(async () => {
    const x509 = await import("@peculiar/x509");
    x509.cryptoProvider.set(webcrypto as webcrypto.Crypto);
    return x509;
  });
  return x509Module;
}

/** ECDSA over P-256 with SHA-256: the key and signature openssl made with prime256v1. */
const EC_P256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/**
 * A positive random serial of 16 bytes: a re-signed certificate never repeats one (RFC 5280
 * §4.1.2.2). The first byte is kept in 0x40–0x7f: positive, and never 0, which DER would drop
 * (a 15-byte serial).
 */
export function randomSerial(bytes: Buffer = randomBytes(16)): string {
  const serial = Buffer.from(bytes);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  return serial.toString("hex");
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  const notBefore = new Date();
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * 86_400_000) };
}

function privateKeyPem(key: CryptoKey): string {
  return KeyObject.from(key).export({ type: "pkcs8", format: "pem" }) as string;
}

/** The CA's P-256 private key (PKCS#8 or SEC1 PEM) as a WebCrypto signing key. */
async function importCaKey(pem: string): Promise<CryptoKey> {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyDetails?.namedCurve !== "prime256v1")
    throw new Error("the CA key is not an EC P-256 key");
  const der = key.export({ type: "pkcs8", format: "der" });
  return webcrypto.subtle.importKey("pkcs8", der, EC_P256, false, ["sign"]) as Promise<CryptoKey>;
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC_P256, true, ["sign", "verify"])) as CryptoKeyPair;
}

function failure(what: string, error: unknown): { ok: false; error: string } {
  return { ok: false, error: `cannot generate ${what}: ${(error as Error).message}` };
}

/** Generates a self-signed CA (P-256). Failures are data. */
export async function generateCertificateAuthority(
  options: AuthorityOptions = {},
): Promise<AuthorityResult> {
  try {
    const x509 = await loadX509();
    const keys = await generateKeys();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(),
      name: `CN=${options.commonName ?? "horizon-ca"}`,
      ...validity(options.days ?? 365),
      signingAlgorithm: EC_P256,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return {
      ok: true,
      value: { caCert: cert.toString("pem"), caKey: privateKeyPem(keys.privateKey) },
    };
  } catch (error) {
    return failure("a CA", error);
  }
}

/** Makes a server certificate (P-256 key) for `hosts`, signed by `ca`. Failures are data. */
export async function signServingCertificate(
  ca: CertificateAuthority,
  options: CertificateOptions = {},
): Promise<CertificateResult> {
  const hosts = [...new Set((options.hosts ?? DEFAULT_CERT_HOSTS).filter((h) => h !== ""))];
  try {
    const x509 = await loadX509();
    const issuer = new x509.X509Certificate(ca.caCert);
    const caKey = await importCaKey(ca.caKey);
    const keys = await generateKeys();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: "CN=horizon-apiserver",
      issuer: issuer.subject,
      ...validity(options.days ?? 365),
      signingAlgorithm: EC_P256,
      publicKey: keys.publicKey,
      signingKey: caKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(
          hosts.map((h) => (isIP(h) ? { type: "ip", value: h } : { type: "dns", value: h })),
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(issuer),
      ],
    });
    return {
      ok: true,
      value: { caCert: ca.caCert, cert: cert.toString("pem"), key: privateKeyPem(keys.privateKey) },
    };
  } catch (error) {
    return failure("certificates", error);
  }
}

/**
 * Generates a throwaway CA and a server certificate it signs for `hosts`. The CA key is
 * dropped: nothing can sign further certificates with it. Failures are data.
 */
export async function generateServingCertificate(
  options: CertificateOptions = {},
): Promise<CertificateResult> {
  const ca = await generateCertificateAuthority(options);
  if (!ca.ok) return ca;
  return signServingCertificate(ca.value, options);
}

/** Where a data directory keeps its serving CA and token (k3s: server/tls, server/token). */
export const CA_CERT_FILE = join("tls", "server-ca.crt");
export const CA_KEY_FILE = join("tls", "server-ca.key");
/** The front proxy's client CA (k3s: server/tls/request-header-ca.*). */
export const REQUEST_HEADER_CA_CERT_FILE = join("tls", "request-header-ca.crt");
export const REQUEST_HEADER_CA_KEY_FILE = join("tls", "request-header-ca.key");
export const TOKEN_FILE = "token";

/** Writes a secret file with mode 0600 through a temp file and a rename (never half-written). */
export async function writeSecret(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  // A temp file left by a crash keeps its old mode: set it.
  await chmod(temp, 0o600);
  await rename(temp, path);
}

export async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * The serving CA of a data directory: the one kept there, else a new one (valid 10 years, as
 * k3s's) saved there, so that a restarted server is trusted by the kubeconfigs of the last run.
 */
export async function persistentCertificateAuthority(
  dir: string,
  options: AuthorityOptions = {},
  files: { cert: string; key: string } = { cert: CA_CERT_FILE, key: CA_KEY_FILE },
): Promise<AuthorityResult> {
  try {
    const [caCert, caKey] = await Promise.all([
      readIfExists(join(dir, files.cert)),
      readIfExists(join(dir, files.key)),
    ]);
    if (caCert !== null && caKey !== null) return { ok: true, value: { caCert, caKey } };
    const made = await generateCertificateAuthority({ days: 3650, ...options });
    if (!made.ok) return made;
    await mkdir(join(dir, "tls"), { recursive: true, mode: 0o700 });
    // The key first: a certificate on disk always has its key.
    await writeSecret(join(dir, files.key), made.value.caKey);
    await writeSecret(join(dir, files.cert), made.value.caCert);
    return made;
  } catch (error) {
    return { ok: false, error: `--data-dir ${dir}: ${(error as Error).message}` };
  }
}

/** The bearer token of a data directory: the one kept there, else `make()` saved there. */
export async function persistentToken(
  dir: string,
  make: () => string,
): Promise<{ ok: true; value: string } | { ok: false; error: string }> {
  try {
    const kept = (await readIfExists(join(dir, TOKEN_FILE)))?.trim();
    if (kept) return { ok: true, value: kept };
    const token = make();
    await writeSecret(join(dir, TOKEN_FILE), `${token}\n`);
    return { ok: true, value: token };
  } catch (error) {
    return { ok: false, error: `--data-dir ${dir}: ${(error as Error).message}` };
  }
}
