// Draws resources/icon.png (512×512): a dark tile with a branching trace line
// and a highlighted "blamed" node. Pure Node (zlib) so it runs anywhere.
import fs from 'node:fs';
import zlib from 'node:zlib';

const N = 512;
const px = Buffer.alloc(N * N * 4);
const set = (x, y, [r, g, b, a]) => {
  if (x < 0 || y < 0 || x >= N || y >= N) return;
  const i = (y * N + x) * 4;
  px[i] = r; px[i + 1] = g; px[i + 2] = b; px[i + 3] = a;
};
const radius = 96;
for (let y = 0; y < N; y++) for (let x = 0; x < N; x++) {
  const cx = Math.min(Math.max(x, radius), N - 1 - radius), cy = Math.min(Math.max(y, radius), N - 1 - radius);
  if ((x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2) set(x, y, [22, 27, 38, 255]);
}
const disc = (cx, cy, r, c) => { for (let y = -r; y <= r; y++) for (let x = -r; x <= r; x++) if (x * x + y * y <= r * r) set(cx + x, cy + y, c); };
const line = (x0, y0, x1, y1, w, c) => { const n = Math.hypot(x1 - x0, y1 - y0); for (let t = 0; t <= n; t++) disc(Math.round(x0 + (x1 - x0) * t / n), Math.round(y0 + (y1 - y0) * t / n), w, c); };
const teal = [94, 200, 190, 255], red = [240, 96, 88, 255], grey = [120, 132, 150, 255];
line(120, 130, 120, 390, 10, grey);
line(120, 200, 260, 200, 10, teal);
line(120, 320, 260, 320, 10, teal);
line(260, 320, 390, 390, 10, red);
disc(120, 130, 30, teal); disc(260, 200, 30, teal); disc(260, 320, 38, red); disc(390, 390, 30, grey); disc(120, 390, 30, grey);

const raw = Buffer.alloc(N * (N * 4 + 1));
for (let y = 0; y < N; y++) { raw[y * (N * 4 + 1)] = 0; px.copy(raw, y * (N * 4 + 1) + 1, y * N * 4, (y + 1) * N * 4); }
const crc = (buf) => { let c, crcv = 0xffffffff; for (const b of buf) { c = (crcv ^ b) & 0xff; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; crcv = (crcv >>> 8) ^ c; } return (crcv ^ 0xffffffff) >>> 0; };
const chunk = (type, data) => { const len = Buffer.alloc(4); len.writeUInt32BE(data.length); const td = Buffer.concat([Buffer.from(type), data]); const c = Buffer.alloc(4); c.writeUInt32BE(crc(td)); return Buffer.concat([len, td, c]); };
const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(N, 0); ihdr.writeUInt32BE(N, 4); ihdr[8] = 8; ihdr[9] = 6;
fs.writeFileSync(new URL('../resources/icon.png', import.meta.url), Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]));
