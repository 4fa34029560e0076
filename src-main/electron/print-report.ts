/**
 * PDF in the desktop app: Electron prints the HTML report itself
 * (printToPDF) in a hidden window with JavaScript disabled, so no Chromium
 * needs to be installed. Outside Electron the engine uses headless Chromium.
 */
import { BrowserWindow } from 'electron';

export async function printReportToPdf(html: string): Promise<Buffer> {
  const win = new BrowserWindow({ show: false, webPreferences: { javascript: false, sandbox: true, contextIsolation: true } });
  try {
    await win.loadURL(`data:text/html;charset=utf-8,${encodeURIComponent(html)}`);
    return await win.webContents.printToPDF({ printBackground: true, pageSize: 'A4' });
  } finally {
    win.destroy();
  }
}
