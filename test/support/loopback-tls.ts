import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Test support (not shipped behaviour): a self-signed certificate for 127.0.0.1 and localhost,
 * made once per test process with the openssl command (Debian's openssl package; .ci/run installs
 * it when missing) and valid for a day. The certificate is its own CA: a client trusts it by
 * passing `cert` as its `ca`. Nothing is kept on disk.
 */
export interface LoopbackTls {
  key: string;
  cert: string;
}

let made: LoopbackTls | undefined;

export function loopbackTls(): LoopbackTls {
  if (made) return made;
  const dir = mkdtempSync(path.join(os.tmpdir(), "lathe-test-tls-"));
  try {
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    // prettier-ignore
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-days", "1", "-keyout", key, "-out", cert,
    ], { stdio: ["ignore", "ignore", "pipe"] });
    made = { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
