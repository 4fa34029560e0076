import type { Command, CommandContext } from '../command';
import { EXIT_OK } from '../command';
import { numberFlag, UsageError } from '../args';
import { startServer } from '../../serve/http-server';
import { OTLP_DEFAULT_PORT, startOtlpReceiver, type RunningOtlpReceiver } from '../../serve/otlp/otlp-receiver';
import type { Engine } from '../../engine/create-engine';
import { seedDemoIfEmpty } from './demo';
import { CliFailure } from '../unwrap';
import { inPackage } from '../../platform/package-root';

export const serveCommand: Command = {
  name: 'serve',
  usage: 'tb serve [--port N] [--demo-if-empty] [--json-ready] [--otlp-port N | --no-otlp] [--otlp-token T]',
  summary:
    'open the UI in a browser: serves Mission Control on 127.0.0.1 with a per-launch token, watching the inbox; receives OpenTelemetry traces (OTLP/HTTP) on 127.0.0.1:4318',
  flags: { values: ['port', 'otlp-port', 'otlp-token'], booleans: ['demo-if-empty', 'json-ready', 'no-otlp'] },
  async run(ctx) {
    const port = numberFlag(ctx.args, 'port', { min: 0, max: 65535, integer: true }) ?? 4477;
    const otlpPort = numberFlag(ctx.args, 'otlp-port', { min: 0, max: 65535, integer: true }) ?? OTLP_DEFAULT_PORT;
    const otlpToken = ctx.args.values['otlp-token'] ?? process.env.TRACEBACK_OTLP_TOKEN ?? null;
    // An empty token (e.g. --otlp-token "$UNSET") must not silently mean "no token": the user asked for one.
    if (otlpToken === '') throw new UsageError('--otlp-token / TRACEBACK_OTLP_TOKEN is empty: give a token, or leave both out to accept any local exporter');
    const engine = ctx.engine({ watch: true });
    if (ctx.args.booleans.has('demo-if-empty')) await seedDemoIfEmpty(engine, (l) => ctx.err(l));
    await engine.watcher?.ready;
    const server = await startServer(engine, { port, rendererDir: inPackage('out/renderer') }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') throw new CliFailure(`port ${port} is already in use; pass --port N (or --port 0 for any free port)`, 2);
      throw err;
    });
    const otlp = ctx.args.booleans.has('no-otlp') ? null : await startOtlp(ctx, engine, otlpPort, otlpToken);
    // One line, so a parent process can read it as soon as it arrives.
    if (ctx.args.booleans.has('json-ready')) {
      ctx.out(JSON.stringify({ url: server.url, port: server.port, token: server.token, otlp_endpoint: otlp?.endpoint ?? null }));
    } else {
      ctx.out(`Traceback is serving ${engine.paths.home}`);
      ctx.out(`Open: ${server.url}`);
      if (otlp) ctx.out(`OpenTelemetry traces: OTEL_EXPORTER_OTLP_ENDPOINT=${otlp.endpoint}`);
      ctx.out('(loopback only; the token in the URL is required. Ctrl-C stops.)');
    }
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await otlp?.close();
    await server.close();
    await engine.close();
    return EXIT_OK;
  },
};

/** The OTLP receiver, or null with one line on stderr when its port is taken: the UI is served either way. */
async function startOtlp(ctx: CommandContext, engine: Engine, port: number, token: string | null): Promise<RunningOtlpReceiver | null> {
  try {
    return await startOtlpReceiver(engine, { port, token });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EADDRINUSE' ? `port ${port} is already in use (another collector?); pass --otlp-port N or --no-otlp` : e.message;
    ctx.err(`OpenTelemetry receiver not started: ${why}. The UI is served.`);
    return null;
  }
}
