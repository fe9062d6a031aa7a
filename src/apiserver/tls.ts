// Serving certificates for `horizon up`: a self-signed CA and a server certificate it signs,
// made with the `openssl` binary in a private temp dir (removed afterwards). Clients trust the
// CA through the kubeconfig's `certificate-authority-data`, as with k3s/kind. In memory the CA
// is throwaway; with a data directory the CA and the token are kept there (as k3s keeps its
// CA and token across restarts), so the kubeconfig of an earlier run stays valid.
// Go's crypto/x509 (kubectl) matches only subjectAltNames, never the CN (Go ≥ 1.15), so every
// address clients dial must be a SAN.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ServingCertificate {
  /** PEM of the CA that signed `cert`; goes into `certificate-authority-data`. */
  caCert: string;
  /** PEM of the server certificate. */
  cert: string;
  /** PEM of the server certificate's private key. */
  key: string;
}

export interface CertificateOptions {
  /** IP addresses and DNS names the certificate is valid for; defaults to 127.0.0.1, ::1, localhost. */
  hosts?: readonly string[];
  /** Validity in days (default 365). */
  days?: number;
  /** The openssl binary (default `openssl` on PATH). */
  openssl?: string;
}

export type CertificateResult =
  | { ok: true; value: ServingCertificate }
  | { ok: false; error: string };

export const DEFAULT_CERT_HOSTS: readonly string[] = ["127.0.0.1", "::1", "localhost"];

/** The subjectAltName extension value for hosts: `IP:…` for addresses, `DNS:…` otherwise. */
export function subjectAltName(hosts: readonly string[]): string {
  const unique = [...new Set(hosts.filter((h) => h !== ""))];
  return unique.map((h) => (isIP(h) ? `IP:${h}` : `DNS:${h}`)).join(",");
}

/** The hosts a serving certificate needs when binding `address`: loopback names plus the address itself. */
export function certificateHosts(address: string): string[] {
  const hosts = [...DEFAULT_CERT_HOSTS];
  // Wildcard binds are dialled through some concrete address; loopback is covered already.
  if (address !== "0.0.0.0" && address !== "::" && address !== "") hosts.push(address);
  return [...new Set(hosts)];
}

function run(binary: string, args: string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(binary, args, { cwd, timeout: 30_000 }, (error, _stdout, stderr) => {
      if (!error) resolve(null);
      else
        resolve(
          `${binary} ${args[0]} failed: ${(stderr || error.message).toString().trim().split("\n")[0]}`,
        );
    });
  });
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** A CA that can sign serving certificates (its key is a secret: keep it 0600). */
export interface CertificateAuthority {
  caCert: string;
  caKey: string;
}

export type AuthorityResult =
  | { ok: true; value: CertificateAuthority }
  | { ok: false; error: string };

async function inTempDir<T extends { ok: boolean }>(
  body: (dir: string) => Promise<T>,
  what: string,
): Promise<T | { ok: false; error: string }> {
  const dir = await mkdtemp(join(tmpdir(), "horizon-tls-"));
  try {
    return await body(dir);
  } catch (error) {
    return { ok: false, error: `cannot generate ${what}: ${(error as Error).message}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Generates a self-signed CA (P-256). Failures (no openssl) are data. */
export async function generateCertificateAuthority(
  options: Omit<CertificateOptions, "hosts"> = {},
): Promise<AuthorityResult> {
  const openssl = options.openssl ?? "openssl";
  const days = String(options.days ?? 365);
  return inTempDir(async (dir) => {
    const error = await run(
      openssl,
      [
        "req",
        "-x509",
        ...EC_KEY,
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        days,
        "-subj",
        "/CN=horizon-ca",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      ],
      dir,
    );
    if (error) return { ok: false, error };
    const [caCert, caKey] = await Promise.all(
      ["ca.crt", "ca.key"].map((f) => readFile(join(dir, f), "utf8")),
    );
    return { ok: true, value: { caCert: caCert!, caKey: caKey! } };
  }, "a CA");
}

/** Makes a server certificate (P-256 key) for `hosts`, signed by `ca`. Failures are data. */
export async function signServingCertificate(
  ca: CertificateAuthority,
  options: CertificateOptions = {},
): Promise<CertificateResult> {
  const openssl = options.openssl ?? "openssl";
  const hosts = options.hosts ?? DEFAULT_CERT_HOSTS;
  const days = String(options.days ?? 365);
  return inTempDir(async (dir) => {
    await writeFile(join(dir, "ca.crt"), ca.caCert);
    await writeFile(join(dir, "ca.key"), ca.caKey, { mode: 0o600 });
    await writeFile(
      join(dir, "server.ext"),
      [
        "basicConstraints=critical,CA:FALSE",
        "keyUsage=critical,digitalSignature,keyEncipherment",
        "extendedKeyUsage=serverAuth",
        `subjectAltName=${subjectAltName(hosts)}`,
        "",
      ].join("\n"),
    );
    const steps: string[][] = [
      [
        "req",
        ...EC_KEY,
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=horizon-apiserver",
      ],
      [
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        // A random serial per certificate: a re-signed certificate never repeats one.
        "-set_serial",
        `0x${randomBytes(16).toString("hex")}`,
        "-out",
        "server.crt",
        "-days",
        days,
        "-extfile",
        "server.ext",
      ],
    ];
    for (const args of steps) {
      const error = await run(openssl, args, dir);
      if (error) return { ok: false, error };
    }
    const [cert, key] = await Promise.all(
      ["server.crt", "server.key"].map((f) => readFile(join(dir, f), "utf8")),
    );
    return { ok: true, value: { caCert: ca.caCert, cert: cert!, key: key! } };
  }, "certificates");
}

/**
 * Generates a throwaway CA and a server certificate it signs for `hosts`. The CA key is
 * dropped: nothing can sign further certificates with it. Failures (no openssl) are data.
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
export const TOKEN_FILE = "token";

/** Writes a secret file with mode 0600 through a temp file and a rename (never half-written). */
async function writeSecret(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  // A temp file left by a crash keeps its old mode: set it.
  await chmod(temp, 0o600);
  await rename(temp, path);
}

async function readIfExists(path: string): Promise<string | null> {
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
  options: Omit<CertificateOptions, "hosts"> = {},
): Promise<AuthorityResult> {
  try {
    const [caCert, caKey] = await Promise.all([
      readIfExists(join(dir, CA_CERT_FILE)),
      readIfExists(join(dir, CA_KEY_FILE)),
    ]);
    if (caCert !== null && caKey !== null) return { ok: true, value: { caCert, caKey } };
    const made = await generateCertificateAuthority({ days: 3650, ...options });
    if (!made.ok) return made;
    await mkdir(join(dir, "tls"), { recursive: true, mode: 0o700 });
    // The key first: a certificate on disk always has its key.
    await writeSecret(join(dir, CA_KEY_FILE), made.value.caKey);
    await writeSecret(join(dir, CA_CERT_FILE), made.value.caCert);
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
