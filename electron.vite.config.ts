import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Three builds: the Electron main process (plus the engine worker thread that
// owns the database), the preload (CommonJS: sandboxed preloads cannot be ESM),
// and the renderer, which `tb serve` also serves from out/renderer.
export default defineConfig({
  main: {
    build: {
      externalizeDeps: true,
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          'engine-worker': resolve(__dirname, 'src-main/electron/engine-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      externalizeDeps: true,
      rollupOptions: {
        input: { preload: resolve(__dirname, 'src-main/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    plugins: [react()],
    build: {
      // TB_NO_MINIFY=1 keeps function names readable in a Chromium CPU profile (docs/benchmarks.md).
      minify: process.env.TB_NO_MINIFY ? false : undefined,
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') },
    },
  },
});
