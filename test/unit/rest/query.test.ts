import { decodePageToken, matches, page, parseFilter, parseOrderBy } from "../../../src/rest/query.js";
import { InvalidError } from "../../../src/rest/errors.js";

describe("filter", () => {
  test.each([
    ["", []],
    ["name = a", [{ field: "name", op: "=", value: "a" }]],
    ['state != "FAILED"', [{ field: "state", op: "!=", value: "FAILED" }]],
    [
      "name = a AND resizeBy = 2",
      [
        { field: "name", op: "=", value: "a" },
        { field: "resizeBy", op: "=", value: "2" },
      ],
    ],
    [
      "(name = 'x y') (status.error.errors = z)",
      [
        { field: "name", op: "=", value: "x y" },
        { field: "status.error.errors", op: "=", value: "z" },
      ],
    ],
  ])("parses %j", (text, expected) => {
    expect(parseFilter(text)).toEqual(expected);
  });

  test.each([
    "name = a OR name = b",
    "name eq a",
    "name < 3",
    "= a",
    "name =",
    '"unterminated',
    "(name = a",
    "a = b c",
  ])("rejects %j with a located 400", (text) => {
    expect(() => parseFilter(text)).toThrow(InvalidError);
    try {
      parseFilter(text);
    } catch (err) {
      expect((err as InvalidError).details[0]).toMatchObject({
        location: "filter",
        locationType: "parameter",
      });
    }
  });

  test("matches scalars at dotted paths; != matches missing fields", () => {
    const obj = { name: "a", resizeBy: 2, status: { ok: true } };
    expect(matches(obj, parseFilter("name = a AND resizeBy = 2 AND status.ok = true"))).toBe(true);
    expect(matches(obj, parseFilter("description != x"))).toBe(true);
    expect(matches(obj, parseFilter("description = x"))).toBe(false);
  });
});

describe("paging", () => {
  const items = ["c", "a", "e", "b", "d"].map((name, i) => ({ name, id: String(10 ** i) }));
  const base = { scope: "s", maxResults: 2 };

  test("walks every item once, in order, with tokens bound to the listing", () => {
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const p = page(items, { ...base, ...(pageToken !== undefined && { pageToken }) });
      seen.push(...p.items.map((i) => i.name));
      pageToken = p.nextPageToken;
    } while (pageToken);
    expect(seen).toEqual(["a", "b", "c", "d", "e"]);
    const token = page(items, base).nextPageToken;
    expect(() => decodePageToken(token, { ...base, filter: "name = a" })).toThrow(InvalidError);
    expect(() => decodePageToken("garbage", base)).toThrow(InvalidError);
  });

  test("orders uint64 strings numerically and honours desc", () => {
    expect(page(items, { ...base, maxResults: 5, orderBy: "id desc" }).items.map((i) => i.id)).toEqual([
      "10000",
      "1000",
      "100",
      "10",
      "1",
    ]);
    expect(() => parseOrderBy("name sideways")).toThrow(InvalidError);
    expect(page(items, { ...base, maxResults: 0 }).items).toHaveLength(5);
  });
});
