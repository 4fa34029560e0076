/**
 * Whether a file cut off mid-write is UTF-8 up to the cut. An exporter killed
 * inside a character of several bytes ("é", "中") leaves that character's
 * first bytes at the end of the file; the stream's reader counts them as text
 * that is not UTF-8 (stream/json-byte-reader.ts checks each read whole), and
 * such a file was read whole instead, which imports nothing of a cut file.
 * Those bytes are after the last complete run, so nothing stored holds them.
 * The invalid-UTF-8 warning of a whole read, and of the OTLP stream, leaves
 * them out too: the cut is said once, as a cut.
 */
import fs from 'node:fs';
import { isUtf8 } from 'node:buffer';

const CHUNK_BYTES = 1024 * 1024;

/**
 * Where the last whole character of `buf[0, end)` ends: before a lead byte in the last three whose character
 * needs more bytes than are there (it goes on in the next read, or was cut), else at `end`.
 */
export function wholeCharactersEnd(buf: Buffer, end: number): number {
  for (let i = end - 1; i >= Math.max(0, end - 3); i--) {
    const b = buf[i];
    if (b < 0x80) return end;
    if (b < 0xc0) continue;
    // Lead bytes of UTF-8 are C2–F4; any other is left for isUtf8 to refuse.
    if (b < 0xc2 || b > 0xf4) return end;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return i + length > end ? i : end;
  }
  return end;
}

/** Whether bytes `from` to `to` of the file are UTF-8, but for a character cut short at `to`. Reads them once more, a chunk at a time. */
export function isUtf8UpToCut(fd: number, from: number, to: number): boolean {
  const buf = Buffer.allocUnsafe(CHUNK_BYTES + 3);
  // Bytes of a character split by the chunk, kept at the buffer's start for the next read.
  let carried = 0;
  for (let pos = from; ; ) {
    const n = pos < to ? fs.readSync(fd, buf, carried, Math.min(CHUNK_BYTES, to - pos), pos) : 0;
    pos += n;
    const end = carried + n;
    const whole = wholeCharactersEnd(buf, end);
    if (!isUtf8(buf.subarray(0, whole))) return false;
    if (n === 0 || pos >= to) return true;
    buf.copy(buf, 0, whole, end);
    carried = end - whole;
  }
}
