/**
 * A peer in the same run: the time DuckDB (through its maintained Node
 * package, @duckdb/node-api) takes to read the same OTLP/JSON file into a
 * table of one row per span — what a user might do instead of importing the
 * file into Traceback. It parses and stores; it does not map spans to steps,
 * cap fields, or report problems by line, so it is a floor, not a rival.
 */
import path from 'node:path';

interface PeerTiming {
  ms: number;
  rows: number;
  version: string;
}

/** Best of `repeats` wall times, or null (with the reason) when the package cannot be loaded here. */
export async function duckdbReadJson(file: string, dir: string, repeats: number): Promise<PeerTiming | { unavailable: string }> {
  let duck: typeof import('@duckdb/node-api');
  try {
    duck = await import('@duckdb/node-api');
  } catch (err) {
    return { unavailable: (err as Error).message.split('\n')[0] };
  }
  let best = Infinity;
  let rows = 0;
  let version = '';
  for (let i = 0; i < repeats; i++) {
    const instance = await duck.DuckDBInstance.create(path.join(dir, `duck-${i}.duckdb`));
    const conn = await instance.connect();
    version = String((await conn.runAndReadAll('SELECT version()')).getRows()[0][0]);
    const t = performance.now();
    // One document of ~50 MB: the object size limit is raised to the file's size. One row per span.
    await conn.run(`CREATE TABLE spans AS
      SELECT unnest(ss.spans, max_depth := 1) AS span FROM (
        SELECT unnest(rs.scopeSpans, max_depth := 1) AS ss FROM (
          SELECT unnest(resourceSpans, max_depth := 1) AS rs FROM read_json('${file.replace(/'/g, "''")}', format = 'auto', maximum_object_size = 1000000000)))`);
    best = Math.min(best, performance.now() - t);
    rows = Number((await conn.runAndReadAll('SELECT COUNT(*) FROM spans')).getRows()[0][0]);
    conn.closeSync();
    instance.closeSync();
  }
  return { ms: best, rows, version };
}
