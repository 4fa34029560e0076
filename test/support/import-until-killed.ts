// Child process for the crash test: imports a file and reports each committed chunk, then idles to be killed.
import { openDatabase } from '../../src-main/engine/store/open-database';
import { importFile } from '../../src-main/engine/ingest/import-file';

const [dbFile, traceFile] = process.argv.slice(2);
const db = openDatabase(dbFile);
importFile(db, traceFile, {
  onChunkCommitted: (lines) => {
    process.stdout.write(`committed ${lines}\n`);
    // Give the parent time to kill us mid-file: block briefly after each commit.
    const until = Date.now() + 200;
    while (Date.now() < until);
  },
});
process.stdout.write('done\n');
