// scrypt$N$r$p$salt$hash hashes and the users file.
import { hashPassword, isPasswordHash, verifyPassword } from "../../../src/dashboard/passwords.js";
import { parseUsers, verifyCredentials } from "../../../src/dashboard/credentials.js";

const cheap = { N: 1024, r: 8, p: 1 };

test("hash and verify", async () => {
  const hash = await hashPassword("correct horse", cheap);
  expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  expect(isPasswordHash(hash)).toBe(true);
  await expect(verifyPassword("correct horse", hash)).resolves.toBe(true);
  await expect(verifyPassword("correct hors", hash)).resolves.toBe(false);
  expect(await hashPassword("correct horse", cheap)).not.toBe(hash);
});

test("malformed hashes never verify", async () => {
  for (const bad of ["", "plain", "scrypt$3$8$1$c2FsdA$aGFzaA", "bcrypt$x", "scrypt$1024$8$1$salt$short"])
    await expect(verifyPassword("x", bad)).resolves.toBe(false);
  expect(isPasswordHash("scrypt$1023$8$1$c2FsdA$aGFzaA")).toBe(false);
});

test("users file: validated; unknown user and wrong password look the same", async () => {
  const hash = await hashPassword("pw", cheap);
  const users = parseUsers(
    `users:\n  - username: ann\n    password: "${hash}"\n    email: ann@example.com\n    groups: [ops]\n`,
  );
  await expect(verifyCredentials(users, "ann", "pw")).resolves.toEqual({
    id: "ann",
    name: "ann",
    email: "ann@example.com",
    groups: ["ops"],
  });
  await expect(verifyCredentials(users, "ann", "nope")).resolves.toBeUndefined();
  await expect(verifyCredentials(users, "bob", "pw")).resolves.toBeUndefined();
  expect(() => parseUsers("users:\n  - username: x\n    password: plain\n")).toThrow(/password hash/);
  expect(() => parseUsers(`users:\n  - username: x\n    password: "${hash}"\n    role: admin\n`)).toThrow();
});
