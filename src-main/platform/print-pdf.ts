/**
 * PDF outside Electron: print the self-contained HTML report with a headless
 * Chromium (Electron's printToPDF does this inside the app). The report has no
 * scripts and no remote content, so printing it opens nothing else.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome', '/Applications/Chromium.app/Contents/MacOS/Chromium',
  'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'];

function findChromium(): string | null {
  const fromEnv = process.env.TRACEBACK_CHROMIUM;
  if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : null;
  return CANDIDATES.find((c) => fs.existsSync(c)) ?? null;
}

export async function printHtmlToPdf(html: string, outFile: string, timeoutMs = 60_000): Promise<{ ok: true } | { ok: false; message: string }> {
  const browser = findChromium();
  if (!browser) {
    return { ok: false, message: 'PDF needs Chromium or Chrome, and none was found (set TRACEBACK_CHROMIUM to its path, or install it: apt-get install chromium). The HTML report (--format html) needs nothing.' };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-pdf-'));
  const htmlFile = path.join(dir, 'report.html');
  fs.writeFileSync(htmlFile, html);
  try {
    fs.rmSync(outFile, { force: true });
    const args = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-pdf-header-footer', `--user-data-dir=${path.join(dir, 'profile')}`, `--print-to-pdf=${outFile}`, `file://${htmlFile}`];
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(browser, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
      child.on('error', () => resolve(-1));
    });
    if (code !== 0 || !fs.existsSync(outFile) || fs.statSync(outFile).size === 0) {
      return { ok: false, message: `Chromium (${browser}) did not produce a PDF (exit ${code})` };
    }
    return { ok: true };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
