// Password hashes for the credentials provider, with Node's built-in scrypt (no native add-on): the
// stored form is `scrypt$N$r$p$salt$hash` (salt and hash in base64url), so cost parameters can be raised
// later without invalidating hashes already in a users file.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

const KEY_LENGTH = 32;
/** N = 2^15, r = 8, p = 1: OWASP's minimum for scrypt; about 50 ms and 32 MiB per check. */
const DEFAULT_COST = { N: 32768, r: 8, p: 1 } as const;
const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function derive(password: string, salt: Buffer, cost: ScryptOptions, length: number): Promise<Buffer> {
  const N = cost.N ?? DEFAULT_COST.N;
  const r = cost.r ?? DEFAULT_COST.r;
  const p = cost.p ?? DEFAULT_COST.p;
  return new Promise((resolve, reject) => {
    // maxmem must cover 128·N·r bytes, or Node refuses the larger cost settings.
    scrypt(password.normalize("NFC"), salt, length, { N, r, p, maxmem: 256 * N * r }, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    });
  });
}

/** A new hash of `password` in the `scrypt$N$r$p$salt$hash` format. */
export async function hashPassword(password: string, cost: ScryptOptions = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost, KEY_LENGTH);
  const { N = DEFAULT_COST.N, r = DEFAULT_COST.r, p = DEFAULT_COST.p } = cost;
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** True when `hash` has the documented format (and sane cost parameters). */
export function isPasswordHash(hash: string): boolean {
  const m = FORMAT.exec(hash);
  if (!m) return false;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return N >= 2 && (N & (N - 1)) === 0 && N <= 2 ** 20 && r >= 1 && r <= 32 && p >= 1 && p <= 16;
}

/** Whether `password` matches `hash`; false for a malformed hash. Constant time in the comparison. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const m = FORMAT.exec(hash);
  if (!m || !isPasswordHash(hash)) return false;
  const expected = Buffer.from(m[5] ?? "", "base64url");
  if (expected.length < 16) return false;
  const key = await derive(
    password,
    Buffer.from(m[4] ?? "", "base64url"),
    { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) },
    expected.length,
  );
  return timingSafeEqual(key, expected);
}
