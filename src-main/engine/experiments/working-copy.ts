/**
 * A private working copy of the recorded working folder, per trial, when the
 * user turns it on (`"working_copy": true` in trials.json): the trial runs in
 * the copy, so what it writes there never reaches the real folder (and under
 * bwrap the real folder is read-only). `.git` is left out and dependency
 * folders (`node_modules`, `.venv`, `venv`) are linked rather than copied:
 * they are large and a trial reads them. Off by default: a pipeline that
 * writes results next to itself on purpose, or refers to its folder by
 * absolute path, would behave differently in a copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EngineError } from '../../../src-shared/result';

const SKIPPED = new Set(['.git']);
const LINKED = new Set(['node_modules', '.venv', 'venv']);
/** Refuse to copy more than this: a trial should not cost a disk copy of a monorepo. */
const MAX_COPY_BYTES = 500 * 1024 * 1024;

/** Copies `from` into `to` (created); returns the bytes copied. Iterative; symbolic links are copied as links. */
export function makeWorkingCopy(from: string, to: string, maxBytes = MAX_COPY_BYTES): number {
  let bytes = 0;
  const stack: [string, string][] = [[from, to]];
  fs.mkdirSync(to, { recursive: true });
  while (stack.length) {
    const [src, dst] = stack.pop()!;
    for (const e of fs.readdirSync(src, { withFileTypes: true })) {
      const s = path.join(src, e.name);
      const d = path.join(dst, e.name);
      if (e.isDirectory() && SKIPPED.has(e.name)) continue;
      if (e.isDirectory() && LINKED.has(e.name)) fs.symlinkSync(s, d, 'dir');
      else if (e.isDirectory()) {
        fs.mkdirSync(d);
        stack.push([s, d]);
      } else if (e.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(s), d);
      else if (e.isFile()) {
        bytes += fs.statSync(s).size;
        if (bytes > maxBytes) {
          throw new EngineError('bad_request', `the working copy of ${from} would exceed ${Math.round(maxBytes / 1048576)} MB; turn "working_copy" off in trials.json or trim the folder`);
        }
        fs.copyFileSync(s, d);
      }
      // FIFOs, sockets and devices are not copied.
    }
  }
  return bytes;
}
