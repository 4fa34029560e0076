// Builds better-sqlite3 for Electron's ABI into native/electron-<modules>/ without
// touching node_modules (which stays the Node build for the CLI and tests).
// Needs Electron's headers: internet, or ELECTRON_HEADERS_DIR pointing at an
// unpacked headers tarball. Verifies the ABI of what it built before keeping it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const electronVersion = require('electron/package.json').version;
const sqliteDir = path.dirname(require.resolve('better-sqlite3/package.json'));
const abiByElectronMajor = { 42: 146, 43: 146, 44: 146, 45: 150 }; // NODE_MODULE_VERSION per Electron major (electron/releases)
const abi = process.env.ELECTRON_ABI ?? abiByElectronMajor[Number(electronVersion.split('.')[0])];
if (!abi) throw new Error(`unknown NODE_MODULE_VERSION for Electron ${electronVersion}; set ELECTRON_ABI`);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-electron-sqlite-'));
fs.cpSync(sqliteDir, work, { recursive: true, filter: (p) => !p.includes(`${path.sep}build${path.sep}`) });
const gyp = require.resolve('node-gyp/bin/node-gyp.js');
const args = [gyp, 'rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers'];
if (process.env.ELECTRON_HEADERS_DIR) args.push(`--nodedir=${process.env.ELECTRON_HEADERS_DIR}`);
console.log(`building better-sqlite3 for Electron ${electronVersion} (ABI ${abi}) in ${work}`);
execFileSync(process.execPath, args, { cwd: work, stdio: 'inherit' });
const built = path.join(work, 'build', 'Release', 'better_sqlite3.node');
// The module's ABI is in its registration: check the binary names the expected version.
const bytes = fs.readFileSync(built);
if (!bytes.includes(Buffer.from(`node_register_module_v${abi}`))) throw new Error(`built module does not carry ABI ${abi}; refusing to install it`);
const dest = path.join(root, 'native', `electron-${abi}`);
fs.mkdirSync(dest, { recursive: true });
fs.copyFileSync(built, path.join(dest, 'better_sqlite3.node'));
console.log(`ok: ${path.join(dest, 'better_sqlite3.node')}`);
