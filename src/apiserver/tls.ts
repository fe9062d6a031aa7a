// Serving certificates for `horizon up`: a throwaway self-signed CA and a server certificate
// it signs, made with the `openssl` binary in a private temp dir (removed afterwards). Clients
// trust the CA through the kubeconfig's `certificate-authority-data`, as with k3s/kind.
// Go's crypto/x509 (kubectl) matches only subjectAltNames, never the CN (Go ≥ 1.15), so every
// address clients dial must be a SAN.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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

/** Generates a CA and a server certificate (P-256 keys) for `hosts`. Failures (no openssl) are data. */
export async function generateServingCertificate(
  options: CertificateOptions = {},
): Promise<CertificateResult> {
  const openssl = options.openssl ?? "openssl";
  const hosts = options.hosts ?? DEFAULT_CERT_HOSTS;
  const days = String(options.days ?? 365);
  const dir = await mkdtemp(join(tmpdir(), "horizon-tls-"));
  try {
    const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    const steps: string[][] = [
      [
        "req",
        "-x509",
        ...key,
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
      [
        "req",
        ...key,
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
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        days,
        "-extfile",
        "server.ext",
      ],
    ];
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
    for (const args of steps) {
      const error = await run(openssl, args, dir);
      if (error) return { ok: false, error };
    }
    const [caCert, cert, serverKey] = await Promise.all(
      ["ca.crt", "server.crt", "server.key"].map((f) => readFile(join(dir, f), "utf8")),
    );
    return { ok: true, value: { caCert: caCert!, cert: cert!, key: serverKey! } };
  } catch (error) {
    return { ok: false, error: `cannot generate certificates: ${(error as Error).message}` };
  } finally {
    // The CA key never leaves the temp dir: nothing can sign further certificates with it.
    await rm(dir, { recursive: true, force: true });
  }
}
