// The dashboard's signed double-submit CSRF token.
import { cookieValue, issueCsrfToken, verifyCsrfToken } from "../../../src/dashboard/csrf.js";

const A = "a".repeat(40);
const B = "b".repeat(40);

test("a token verifies for its subject under any secret of the rotation list", () => {
  const token = issueCsrfToken([A], "dashboard:ann@example.com");
  expect(verifyCsrfToken([A], "dashboard:ann@example.com", token)).toBe(true);
  expect(verifyCsrfToken([B, A], "dashboard:ann@example.com", token)).toBe(true);
  expect(verifyCsrfToken([B], "dashboard:ann@example.com", token)).toBe(false);
  expect(verifyCsrfToken([A], "dashboard:bob@example.com", token)).toBe(false);
  expect(verifyCsrfToken([A], "dashboard:ann@example.com", `${token}x`)).toBe(false);
  expect(verifyCsrfToken([A], "dashboard:ann@example.com", "")).toBe(false);
  expect(verifyCsrfToken([A], "dashboard:ann@example.com", `${token}.extra`)).toBe(false);
});

test("cookieValue", () => {
  expect(cookieValue("a=1; dashboard.csrf=x%2Fy; b=2", "dashboard.csrf")).toBe("x/y");
  expect(cookieValue(undefined, "a")).toBeUndefined();
  expect(cookieValue("xa=1", "a")).toBeUndefined();
});
