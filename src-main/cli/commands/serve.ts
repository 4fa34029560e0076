import { fileURLToPath } from 'node:url';
import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { numberFlag } from '../args';
import { startServer } from '../../serve/http-server';
import { seedDemoIfEmpty } from './demo';
import { CliFailure } from '../unwrap';

const RENDERER_DIR = fileURLToPath(new URL('../../../out/renderer', import.meta.url));

export const serveCommand: Command = {
  name: 'serve',
  usage: 'tb serve [--port N] [--demo-if-empty] [--json-ready]',
  summary: 'open the UI in a browser: serves Mission Control on 127.0.0.1 with a per-launch token, watching the inbox',
  flags: { values: ['port'], booleans: ['demo-if-empty', 'json-ready'] },
  async run(ctx) {
    const port = numberFlag(ctx.args, 'port', { min: 0, max: 65535, integer: true }) ?? 4477;
    const engine = ctx.engine({ watch: true });
    if (ctx.args.booleans.has('demo-if-empty')) await seedDemoIfEmpty(engine, (l) => ctx.err(l));
    await engine.watcher?.ready;
    const server = await startServer(engine, { port, rendererDir: RENDERER_DIR }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') throw new CliFailure(`port ${port} is already in use; pass --port N (or --port 0 for any free port)`, 2);
      throw err;
    });
    // One line, so a parent process can read it as soon as it arrives.
    if (ctx.args.booleans.has('json-ready')) ctx.out(JSON.stringify({ url: server.url, port: server.port, token: server.token }));
    else {
      ctx.out(`Traceback is serving ${engine.paths.home}`);
      ctx.out(`Open: ${server.url}`);
      ctx.out('(loopback only; the token in the URL is required. Ctrl-C stops.)');
    }
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
    await engine.close();
    return EXIT_OK;
  },
};
