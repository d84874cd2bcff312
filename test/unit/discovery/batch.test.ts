// The batch format: multipart/mixed with application/http parts in, the same out.
import { formatBatch, parseBatch } from "../../../src/rest/batch.js";
import { RestError } from "../../../src/rest/errors.js";

const CT = "multipart/mixed; boundary=batch_foobarbaz";

test("parses Google's example: Content-ID, request line, headers and body; CRLF or LF", () => {
  const body = [
    "--batch_foobarbaz",
    "Content-Type: application/http",
    "Content-ID: <item1:12930812@barnyard.example.com>",
    "",
    "GET /compute/v1/projects/p/zones/z/operations/op-1?fields=name",
    "",
    "--batch_foobarbaz",
    "Content-Type: application/http",
    "Content-ID: <item2:12930812@barnyard.example.com>",
    "",
    "POST https://ops.example/compute/v1/projects/p/zones/z/operations/op-1/wait HTTP/1.1",
    "Content-Type: application/json",
    "Authorization: Bearer part-token",
    "",
    '{"a":1}',
    "--batch_foobarbaz--",
    "",
  ];
  for (const eol of ["\r\n", "\n"]) {
    const parts = parseBatch(CT, `preamble${eol}${body.join(eol)}`);
    expect(parts).toEqual([
      {
        contentId: "<item1:12930812@barnyard.example.com>",
        method: "GET",
        path: "/compute/v1/projects/p/zones/z/operations/op-1?fields=name",
        headers: {},
        body: "",
      },
      {
        contentId: "<item2:12930812@barnyard.example.com>",
        method: "POST",
        path: "/compute/v1/projects/p/zones/z/operations/op-1/wait",
        headers: { "content-type": "application/json", authorization: "Bearer part-token" },
        body: '{"a":1}',
      },
    ]);
  }
  expect(parseBatch('multipart/mixed; boundary="batch_foobarbaz"', body.join("\r\n"))).toHaveLength(2);
});

test.each([
  ["no boundary", "multipart/mixed", "--x\r\n\r\nGET /a\r\n--x--"],
  ["not multipart", "application/json", "{}"],
  ["no delimiter", CT, "GET /a"],
  ["no closing delimiter", CT, "--batch_foobarbaz\r\nContent-Type: application/http\r\n\r\nGET /a\r\n"],
  ["no parts", CT, "--batch_foobarbaz--\r\n"],
  [
    "a part that is not application/http",
    CT,
    "--batch_foobarbaz\r\nContent-Type: text/plain\r\n\r\nGET /a\r\n--batch_foobarbaz--",
  ],
  [
    "no request line",
    CT,
    "--batch_foobarbaz\r\nContent-Type: application/http\r\n\r\nhello\r\n--batch_foobarbaz--",
  ],
])("%s is a 400", (_what, contentType, body) => {
  expect(() => parseBatch(contentType, body)).toThrow(RestError);
});

test("answers with application/http parts, response-<id> Content-IDs and exact lengths", () => {
  const requests = parseBatch(
    CT,
    "--batch_foobarbaz\r\nContent-Type: application/http\r\nContent-ID: <a>\r\n\r\nGET /x\r\n" +
      "--batch_foobarbaz\r\nContent-Type: application/http\r\nContent-ID: b\r\n\r\nGET /y\r\n--batch_foobarbaz--",
  );
  const text = formatBatch("out", requests, [
    {
      status: 200,
      headers: { "content-type": "application/json", "content-length": "99", etag: '"e"' },
      body: '{"é":1}',
    },
    { status: 404, headers: {}, body: "" },
  ]);
  expect(text).toBe(
    "--out\r\nContent-Type: application/http\r\nContent-ID: <response-a>\r\n\r\n" +
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\netag: "e"\r\nContent-Length: 8\r\n\r\n{"é":1}\r\n' +
      "--out\r\nContent-Type: application/http\r\nContent-ID: response-b\r\n\r\n" +
      "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n\r\n--out--\r\n",
  );
});
