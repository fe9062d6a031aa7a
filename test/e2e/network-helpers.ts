// Helpers of the pod-network end-to-end tests: address ranges of their own, plain HTTP GETs.
import { request } from "node:http";

/** A /24 of each range of its own, so parallel test processes never share an address. */
export function testRanges(): { podCidr: string; serviceCidr: string } {
  const a = 66 + Math.floor(Math.random() * 60);
  const b = Math.floor(Math.random() * 256);
  return { podCidr: `127.${a}.${b}.0/24`, serviceCidr: `127.${a + 60}.${b}.0/24` };
}

/** GET http://host:port/path without keep-alive: status and body. */
export function get(
  host: string,
  port: number,
  path = "/",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, agent: false, timeout: 5000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.end();
  });
}
