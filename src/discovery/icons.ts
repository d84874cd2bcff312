// The API's icons (`icons.x16`, `icons.x32`): three bars of growing height on a blue square, drawn
// as PNG at start-up so the document links to images this server itself serves.
import { crc32, deflateSync } from "node:zlib";

const BLUE = [0x1a, 0x73, 0xe8, 0xff];
const WHITE = [0xff, 0xff, 0xff, 0xff];

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `size`×`size` RGBA PNG. */
export function icon(size: number): Buffer {
  const bars = [
    { from: 0.2, to: 0.36, height: 0.3 },
    { from: 0.42, to: 0.58, height: 0.5 },
    { from: 0.64, to: 0.8, height: 0.7 },
  ];
  const bottom = size * 0.85;
  const rows: number[] = [];
  for (let y = 0; y < size; y++) {
    rows.push(0); // filter type None
    for (let x = 0; x < size; x++) {
      const inBar = bars.some(
        (b) => x >= b.from * size && x < b.to * size && y < bottom && y >= bottom - b.height * size,
      );
      rows.push(...(inBar ? WHITE : BLUE));
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(6, 9); // colour type RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.from(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
