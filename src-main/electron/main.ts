/**
 * The Electron shell, kept thin: one window, a menu, the security settings,
 * and the bridge from IPC to the engine worker. Everything else is the engine
 * (tested in Node) and the renderer (tested through `tb serve`).
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, session, shell, type MenuItemConstructorOptions } from 'electron';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../src-shared/ipc-protocol';
import { isCallName } from '../../src-shared/api';
import { CONTENT_SECURITY_POLICY } from '../content-security-policy';
import { startEngineHost, type EngineHost } from './engine-host';
import { loadWindowState, saveWindowState } from './window-state';
import { electronNativeBinding } from './native-binding';
import { printReportToPdf } from './print-report';

const here = path.dirname(fileURLToPath(import.meta.url));
const appRoot = path.resolve(here, '../..');
let win: BrowserWindow | null = null;
let engine: EngineHost | null = null;
const RECENT_MAX = 8;

function recentFile(): string {
  return path.join(app.getPath('userData'), 'recent.json');
}
function readRecent(): string[] {
  try {
    return (JSON.parse(fs.readFileSync(recentFile(), 'utf8')) as string[]).filter((p) => typeof p === 'string').slice(0, RECENT_MAX);
  } catch {
    return [];
  }
}
function addRecent(paths: string[]): void {
  const next = [...paths, ...readRecent().filter((p) => !paths.includes(p))].slice(0, RECENT_MAX);
  fs.writeFileSync(recentFile(), JSON.stringify(next));
  buildMenu();
}

async function importAndRemember(paths: string[]): Promise<void> {
  if (!engine || paths.length === 0) return;
  const r = await engine.call('importPaths', { paths });
  addRecent(paths);
  if (!r.ok) dialog.showErrorBox('Import failed', r.error.message);
  else if (r.value.errors.some((e) => e.level === 'error')) {
    const lines = r.value.errors.filter((e) => e.level === 'error').slice(0, 10).map((e) => `${e.file}:${e.line}: ${e.message}`);
    dialog.showMessageBox({ type: 'warning', message: 'Some records could not be imported', detail: lines.join('\n') });
  }
}

function buildMenu(): void {
  const isMac = process.platform === 'darwin';
  const recent = readRecent();
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        {
          label: 'Open Trace File…',
          accelerator: 'CmdOrCtrl+O',
          click: async () => {
            const r = await dialog.showOpenDialog({ properties: ['openFile', 'multiSelections'], filters: [{ name: 'Traces', extensions: ['jsonl', 'ndjson', 'json'] }] });
            if (!r.canceled) await importAndRemember(r.filePaths);
          },
        },
        {
          label: 'Open Folder…',
          accelerator: 'CmdOrCtrl+Shift+O',
          click: async () => {
            const r = await dialog.showOpenDialog({ properties: ['openDirectory'] });
            if (!r.canceled) await importAndRemember(r.filePaths);
          },
        },
        {
          label: 'Open Recent',
          submenu: recent.length ? recent.map((p) => ({ label: p, click: () => importAndRemember([p]) })) : [{ label: 'No recent files', enabled: false }],
        },
        { type: 'separator' },
        { label: 'Export Report…', accelerator: 'CmdOrCtrl+E', click: () => win?.webContents.send(IPC_EVENT_CHANNEL, { event: 'menu', payload: { action: 'export-report' } }) },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    {
      role: 'help',
      submenu: [
        {
          label: 'About Traceback',
          click: () => dialog.showMessageBox({ type: 'info', title: 'About Traceback', message: `Traceback ${app.getVersion()}`, detail: 'Offline forensics for LLM-agent runs.\nYour traces never leave this computer.' }),
        },
      ],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

function createWindow(): void {
  const stateDir = app.getPath('userData');
  const state = loadWindowState(stateDir);
  win = new BrowserWindow({
    ...state,
    minWidth: 900,
    minHeight: 600,
    title: 'Traceback',
    icon: path.join(appRoot, 'resources', 'icon.png'),
    show: false,
    webPreferences: {
      preload: path.join(here, '../preload/preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  if (state.maximized) win.maximize();
  win.once('ready-to-show', () => win?.show());
  const remember = () => {
    if (!win) return;
    saveWindowState(stateDir, { ...win.getNormalBounds(), maximized: win.isMaximized() });
  };
  win.on('close', remember);
  win.on('closed', () => (win = null));
  // No navigation away from the app and no new windows: trace text may contain links.
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  if (process.env.ELECTRON_RENDERER_URL) void win.loadURL(process.env.ELECTRON_RENDERER_URL);
  else void win.loadFile(path.join(here, '../renderer/index.html'));
}

function isOwnFrame(url: string | undefined): boolean {
  if (!url) return false;
  if (process.env.ELECTRON_RENDERER_URL && url.startsWith(process.env.ELECTRON_RENDERER_URL)) return true;
  return url.startsWith('file://') && url.includes('/renderer/index.html');
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.whenReady().then(() => {
    session.defaultSession.webRequest.onHeadersReceived((details, cb) => {
      cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
    });
    session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
    engine = startEngineHost(path.join(here, 'engine-worker.js'), {
      home: process.env.TRACEBACK_HOME,
      nativeBinding: electronNativeBinding(appRoot, process.resourcesPath),
    });
    engine.onEvent((event, payload) => win?.webContents.send(IPC_EVENT_CHANNEL, { event, payload }));
    ipcMain.handle(IPC_CALL_CHANNEL, async (e, name: unknown, args: unknown) => {
      // Only our own page may call the engine.
      if (!isOwnFrame(e.senderFrame?.url)) return { ok: false, error: { code: 'bad_request', message: 'unknown sender' } };
      if (!isCallName(name)) return { ok: false, error: { code: 'not_found', message: 'unknown call' } };
      const a = args as { runId?: unknown; format?: unknown } | null;
      if (name === 'renderReport' && a?.format === 'pdf') {
        const html = await engine!.call('renderReport', { ...a, format: 'html' });
        if (!html.ok) return html;
        const pdf = await printReportToPdf(html.value.content);
        return { ok: true, value: { format: 'pdf', content: pdf.toString('base64'), filename: html.value.filename.replace(/\.html$/, '.pdf'), encoding: 'base64' } };
      }
      return engine!.call(name, args);
    });
    buildMenu();
    createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow();
    });
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('will-quit', () => void engine?.stop());
}
