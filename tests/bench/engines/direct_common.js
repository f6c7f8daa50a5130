// direct_common.js: what every direct-call script of tests/bench/engines/ shares: the engine's build folder
// (argv[2], build/engines/NAME, for its node_modules and the bench's case reader and window), the cases
// (argv[4], format v1), one answer line 'ID CLASS T' per case on stdout (T as JS prints a double).
'use strict';
const fs = require('fs');
const path = require('path');

const dir = path.resolve(process.argv[2]);
const solver = process.argv[3];
const { parseCase, window, formatNumber } = require(path.join(dir, 'protocol.js'));

// The engine package, resolved from the engine's build folder; esm(name): the file URL of an ES module
// package's import entry (its package.json "exports"), for import().
function pkg(name) { return require.resolve(name, { paths: [dir] }); }
function esm(name) {
  const root = path.join(dir, 'node_modules', name);
  const e = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).exports['.'];
  return require('url').pathToFileURL(path.join(root, e.import.default || e.import)).href;
}

function cases() {
  return fs.readFileSync(process.argv[4], 'utf8').split('\n').map((l) => l.trim().split(/\s+/))
    .filter((f) => f[0] && f[0][0] !== '#').map(parseCase);
}

// f(c, W) -> {cls, t} or 'unsupported': printed for each case as the protocol prints it ('ID failed' for a
// hit at a NaN or infinite time, which the protocol cannot carry).
async function run(init, f) {
  await init();
  const out = [];
  for (const c of cases()) {
    const r = f(c, window(c, Infinity));
    if (r === 'unsupported') out.push(`${c.id} unsupported`);
    else if (r.cls !== 'none' && !Number.isFinite(r.t)) out.push(`${c.id} failed`);
    else out.push(`${c.id} ${r.cls} ${formatNumber(r.t)}`);
  }
  process.stdout.write(out.join('\n') + '\n');
}

module.exports = { pkg, esm, run, solver };
