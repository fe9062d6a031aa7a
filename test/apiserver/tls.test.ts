// The serving CA and certificate, made in-process: the properties openssl gave them (P-256
// keys, CA flags, key usages, SANs, validity), a chain node:tls accepts, a kept CA re-signing.
import assert from "node:assert/strict";
import { createPrivateKey, generateKeyPairSync, X509Certificate } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { connect, createServer } from "node:tls";
import {
  generateCertificateAuthority,
  generateServingCertificate,
  randomSerial,
  signServingCertificate,
} from "../../src/apiserver/tls.js";

const DAY_MS = 86_400_000;

function validityDays(cert: X509Certificate): number {
  return (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / DAY_MS;
}

/**
 * Whether a TLS client that trusts only `served.caCert` accepts the server, checking the name
 * `servername` (a DNS name) or else the dialled address 127.0.0.1 against the SANs.
 */
async function handshake(
  served: { cert: string; key: string; caCert: string },
  servername?: string,
): Promise<{ authorized: boolean; error?: string }> {
  const server = createServer({ cert: served.cert, key: served.key }, (socket) => socket.end());
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise((resolve) => {
      const socket = connect({
        host: "127.0.0.1",
        port,
        ca: served.caCert,
        ...(servername === undefined ? {} : { servername }),
      });
      socket.once("secureConnect", () => {
        socket.destroy();
        resolve({ authorized: socket.authorized });
      });
      socket.once("error", (error) => resolve({ authorized: false, error: error.message }));
    });
  } finally {
    server.close();
  }
}

describe("serving certificates (in-process, no openssl)", () => {
  it("the CA: self-signed P-256, CN=horizon-ca, CA:TRUE, keyCertSign, valid for the days asked", async () => {
    const made = await generateCertificateAuthority({ days: 3650 });
    assert.ok(made.ok, made.ok ? "" : made.error);
    const ca = new X509Certificate(made.value.caCert);
    assert.equal(ca.subject, "CN=horizon-ca");
    assert.equal(ca.issuer, "CN=horizon-ca");
    assert.ok(ca.ca);
    assert.ok(ca.checkIssued(ca));
    assert.ok(ca.verify(ca.publicKey));
    assert.equal(ca.publicKey.asymmetricKeyDetails?.namedCurve, "prime256v1");
    assert.equal(validityDays(ca), 3650);
    const key = createPrivateKey(made.value.caKey);
    assert.match(made.value.caKey, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.ok(ca.checkPrivateKey(key));
    // keyUsage critical keyCertSign+cRLSign, basicConstraints critical CA:TRUE (DER, by OID).
    const der = ca.raw.toString("hex");
    assert.ok(
      der.includes("0603551d0f0101ff040403020106"),
      "keyUsage: critical keyCertSign, cRLSign",
    );
    assert.ok(der.includes("0603551d130101ff040530030101ff"), "basicConstraints: critical CA:TRUE");
  });

  it("the server certificate: P-256, signed by the CA, serverAuth, SANs, not a CA, 365 days", async () => {
    const made = await generateServingCertificate({
      hosts: ["127.0.0.1", "::1", "localhost", "10.1.2.3", "horizon.example"],
    });
    assert.ok(made.ok, made.ok ? "" : made.error);
    const ca = new X509Certificate(made.value.caCert);
    const cert = new X509Certificate(made.value.cert);
    assert.equal(cert.subject, "CN=horizon-apiserver");
    assert.equal(cert.issuer, "CN=horizon-ca");
    assert.ok(cert.checkIssued(ca));
    assert.ok(cert.verify(ca.publicKey));
    assert.ok(!cert.ca);
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, "prime256v1");
    assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1"]);
    assert.equal(
      cert.subjectAltName,
      "IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost, IP Address:10.1.2.3, DNS:horizon.example",
    );
    assert.equal(validityDays(cert), 365);
    assert.ok(cert.checkPrivateKey(createPrivateKey(made.value.key)));
    const der = cert.raw.toString("hex");
    assert.ok(
      der.includes("0603551d0f0101ff0404030205a0"),
      "keyUsage: critical digitalSignature, keyEncipherment",
    );
    assert.ok(der.includes("0603551d130101ff04023000"), "basicConstraints: critical CA:FALSE");
    // A positive serial of 16 bytes, different each time.
    assert.match(cert.serialNumber, /^[4-7][0-9A-F]{31}$/);
  });

  it("a serial is 16 bytes and positive whatever the random first byte (DER drops a leading 0)", () => {
    for (const first of [0x00, 0x01, 0x3f, 0x40, 0x7f, 0x80, 0xc0, 0xff]) {
      const bytes = Buffer.alloc(16, 0xab);
      bytes[0] = first;
      const serial = randomSerial(bytes);
      assert.match(serial, /^[4-7][0-9a-f]{31}$/, `first byte ${first}`);
      assert.equal(serial.slice(2), "ab".repeat(15));
    }
  });

  it("node:tls trusting only the CA accepts the certificate for each SAN, and no other name", async () => {
    const made = await generateServingCertificate({ hosts: ["127.0.0.1", "localhost"] });
    assert.ok(made.ok, made.ok ? "" : made.error);
    assert.deepEqual(await handshake(made.value), { authorized: true });
    assert.deepEqual(await handshake(made.value, "localhost"), { authorized: true });
    const other = await handshake(made.value, "elsewhere.example");
    assert.equal(other.authorized, false);
    assert.match(other.error ?? "", /altnames/);
    const stranger = await generateServingCertificate();
    assert.ok(stranger.ok);
    const untrusted = await handshake({ ...made.value, caCert: stranger.value.caCert });
    assert.equal(untrusted.authorized, false);
    assert.match(untrusted.error ?? "", /self[- ]signed|unable to verify/i);
  });

  it("a kept CA signs new certificates, whether its key is PKCS#8 or SEC1 PEM", async () => {
    const made = await generateCertificateAuthority();
    assert.ok(made.ok);
    const sec1 = createPrivateKey(made.value.caKey).export({
      type: "sec1",
      format: "pem",
    }) as string;
    for (const caKey of [made.value.caKey, sec1]) {
      const signed = await signServingCertificate({ caCert: made.value.caCert, caKey });
      assert.ok(signed.ok, signed.ok ? "" : signed.error);
      const cert = new X509Certificate(signed.value.cert);
      assert.ok(cert.verify(new X509Certificate(made.value.caCert).publicKey));
    }
  });

  it("a CA key that is not P-256 is an error value, not an exception", async () => {
    const made = await generateCertificateAuthority();
    assert.ok(made.ok);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const signed = await signServingCertificate({
      caCert: made.value.caCert,
      caKey: rsa.export({ type: "pkcs8", format: "pem" }) as string,
    });
    assert.deepEqual(signed, {
      ok: false,
      error: "cannot generate certificates: the CA key is not an EC P-256 key",
    });
  });
});
