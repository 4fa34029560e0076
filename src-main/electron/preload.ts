/// <reference lib="dom" />
/**
 * The only bridge into the sandboxed renderer: one object, `window.traceback`,
 * with invoke(name, args) and on(event, fn) over the contract's channel names.
 * Files dropped on the window are imported here (their paths are visible only
 * to the preload, through webUtils).
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { EVENT_NAMES, isCallName, type EventName } from '../../src-shared/api';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../src-shared/ipc-protocol';

const api = {
  invoke: (name: string, args: unknown) => {
    if (!isCallName(name)) return Promise.resolve({ ok: false, error: { code: 'not_found', message: `unknown call "${String(name)}"` } });
    return ipcRenderer.invoke(IPC_CALL_CHANNEL, name, args);
  },
  on: (event: string, listener: (payload: unknown) => void) => {
    if (!EVENT_NAMES.includes(event as EventName)) throw new Error(`unknown event "${event}"`);
    const handler = (_e: unknown, msg: { event: string; payload: unknown }) => {
      if (msg.event === event) listener(msg.payload);
    };
    ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
    return () => ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
  },
};

contextBridge.exposeInMainWorld('traceback', api);

window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  const paths = Array.from(e.dataTransfer?.files ?? []).map((f) => webUtils.getPathForFile(f)).filter((p) => p);
  if (paths.length) void ipcRenderer.invoke(IPC_CALL_CHANNEL, 'importPaths', { paths });
});
