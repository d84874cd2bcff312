// Certificates and keys for the local control plane, made with the openssl CLI: a cluster CA, the API
// server's serving certificate, client certificates for the admin and each component, and the
// service-account signing key pair (so TokenRequest and TokenReview work).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

export interface ClientCert {
  readonly cert: string;
  readonly key: string;
}

export interface Pki {
  readonly caCert: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly saKey: string;
  readonly saPub: string;
  readonly clients: Record<"admin" | "controllerManager" | "scheduler", ClientCert>;
}

function openssl(args: string[], cwd: string): void {
  const res = spawnSync("openssl", args, { cwd, encoding: "utf8" });
  if (res.error)
    throw new Error("openssl is required to create the local cluster's certificates: " + res.error.message);
  if (res.status !== 0) throw new Error(`openssl ${args.join(" ")} failed: ${res.stderr}`);
}

function issue(dir: string, name: string, subject: string, extensions: string): ClientCert {
  const key = path.join(dir, `${name}.key`);
  const csr = path.join(dir, `${name}.csr`);
  const cert = path.join(dir, `${name}.crt`);
  const ext = path.join(dir, `${name}.ext`);
  writeFileSync(ext, extensions);
  openssl(
    [
      "req",
      "-new",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      csr,
      "-subj",
      subject,
    ],
    dir,
  );
  openssl(
    [
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "3650",
      "-out",
      cert,
      "-extfile",
      ext,
    ],
    dir,
  );
  return { cert, key };
}

const clientExt =
  "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n";

export function createPki(dir: string): Pki {
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "3650",
      "-subj",
      "/CN=resize-operator-local-ca",
    ],
    dir,
  );
  const server = issue(
    dir,
    "apiserver",
    "/CN=kube-apiserver",
    "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n" +
      "subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\n",
  );
  openssl(["genrsa", "-out", "sa.key", "2048"], dir);
  openssl(["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"], dir);
  return {
    caCert: path.join(dir, "ca.crt"),
    caKey: path.join(dir, "ca.key"),
    serverCert: server.cert,
    serverKey: server.key,
    saKey: path.join(dir, "sa.key"),
    saPub: path.join(dir, "sa.pub"),
    clients: {
      admin: issue(dir, "admin", "/O=system:masters/CN=kubernetes-admin", clientExt),
      controllerManager: issue(dir, "controller-manager", "/CN=system:kube-controller-manager", clientExt),
      scheduler: issue(dir, "scheduler", "/CN=system:kube-scheduler", clientExt),
    },
  };
}
