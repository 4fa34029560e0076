/**
 * The desktop app's OTLP receiver, configured by environment variables (the
 * app has no command line of its own): TRACEBACK_OTLP_PORT (default 4318;
 * "off" disables it) and TRACEBACK_OTLP_TOKEN (optional).
 */
import type { Engine } from '../../engine/create-engine';
import { OTLP_DEFAULT_PORT, startOtlpReceiver, type RunningOtlpReceiver } from './otlp-receiver';

/** The running receiver, or null with one line to `warn` when it is off or its port cannot be had. */
export async function startOtlpFromEnv(engine: Engine, warn: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<RunningOtlpReceiver | null> {
  const setting = (env.TRACEBACK_OTLP_PORT ?? '').trim();
  if (setting.toLowerCase() === 'off') return null;
  const port = setting === '' ? OTLP_DEFAULT_PORT : Number(setting);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    warn(`OpenTelemetry receiver not started: TRACEBACK_OTLP_PORT=${JSON.stringify(setting)} is not a port number (or "off")`);
    return null;
  }
  try {
    return await startOtlpReceiver(engine, { port, token: env.TRACEBACK_OTLP_TOKEN || null });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    warn(`OpenTelemetry receiver not started: ${e.code === 'EADDRINUSE' ? `port ${port} is already in use (set TRACEBACK_OTLP_PORT to another port, or "off")` : e.message}`);
    return null;
  }
}
