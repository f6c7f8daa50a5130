// protocol.js: the toibench subprocess solver protocol for the node engine adapters (read cases, write answers).
'use strict';
const readline = require('readline');

// Exact reader of C99 hex floats (toibench writes cases with %a), decimals, nan and inf.
function parseNumber(s) {
  const m = /^([+-]?)0x([0-9a-f]*)(?:\.([0-9a-f]*))?p([+-]?\d+)$/i.exec(s);
  if (!m) {
    if (/^[+-]?nan$/i.test(s)) return NaN;
    if (/^[+-]?inf(inity)?$/i.test(s)) return s[0] === '-' ? -Infinity : Infinity;
    return Number(s);
  }
  const frac = m[3] || '';
  const digits = (m[2] + frac).replace(/^0+/, '') || '0';
  // %a prints at most 53 significant bits, which a double holds exactly.
  let x = parseInt(digits, 16);
  let e = parseInt(m[4], 10) - 4 * frac.length;
  // Scaling in steps that stay in the normal range is exact.
  while (e > 0) { const k = Math.min(e, 1000); x *= 2 ** k; e -= k; }
  while (e < 0) { const k = Math.max(e, -1000); x *= 2 ** k; e -= k; }
  return m[1] === '-' ? -x : x;
}

// String(x) is the shortest decimal that reads back as the same double.
function formatNumber(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return String(x);
}

// One case line of format v1 into {id, dim, pa, va, ra, pb, vb, rb}, or null.
function parseCase(fields) {
  const dim = Number(fields[1]);
  if ((dim !== 2 && dim !== 3) || fields.length !== 2 + 2 * (2 * dim + 2)) return null;
  const x = fields.slice(2).map(parseNumber);
  const vec = (o) => { const v = [0, 0, 0]; for (let k = 0; k < dim; k++) v[k] = x[o + k]; return v; };
  const n = 2 * dim + 2;
  return {
    id: fields[0], dim, pa: vec(0), va: vec(dim), ra: x[2 * dim], pb: vec(n), vb: vec(n + dim), rb: x[n + 2 * dim],
  };
}

// As engines/engine_common.h: a 2D engine takes a 3D case only in the plane z = 0.
function planar(c) {
  return c.dim === 2 || (c.pa[2] === 0 && c.va[2] === 0 && c.pb[2] === 0 && c.vb[2] === 0);
}

// As engines/engine_common.h: the run's step, else a power of two at least 2 (|s| + R) / |v|.
function window(c, tmax) {
  if (Number.isFinite(tmax)) return tmax;
  const s = Math.hypot(c.pb[0] - c.pa[0], c.pb[1] - c.pa[1], c.pb[2] - c.pa[2]);
  const v = Math.hypot(c.vb[0] - c.va[0], c.vb[1] - c.va[1], c.vb[2] - c.va[2]);
  if (v === 0 || !Number.isFinite(v)) return 1;
  const L = (s + c.ra + c.rb) / v;
  if (!(L > 0)) return 1;
  if (!Number.isFinite(L)) return 2 ** 1023;
  const e = Math.min(1023, Math.max(-1074, Math.floor(Math.log2(L)) + 2));
  return e < -1022 ? 2 ** -1022 * 2 ** (e + 1022) : 2 ** e;
}

// The engine's own cost, apart from the protocol's: engineTime(f) runs f, one call of the engine's routine,
// timed with process.hrtime.bigint, and returns what f returns. serve() reports the sum after the answers
// as the protocol's optional line '# engine-time CALLS NANOSECONDS'.
const cost = { ns: 0n, calls: 0 };
function engineTime(f) {
  const t0 = process.hrtime.bigint();
  try {
    return f();
  } finally {
    cost.ns += process.hrtime.bigint() - t0;
    cost.calls++;
  }
}

// Runs one solver: solve(c, tmax) returns {cls, t, target, tolerance}, {failed: true} or 'unsupported'.
// With --manifest, prints the line toibench's engine registry reads instead.
async function serve(solvers, name, init) {
  if (name === '--manifest') {
    for (const [n, s] of Object.entries(solvers)) {
      const cmd = `'${process.execPath}' '${require.main.filename}' ${n}`;
      // The fourth field, the precision the engine computes in (binary64 when absent).
      process.stdout.write(`${n}\t${cmd}\t${s.summary}\t${s.precision || 'binary64'}\n`);
    }
    return;
  }
  const solver = solvers[name];
  if (!solver) {
    process.stderr.write(`unknown solver '${name}'; known: ${Object.keys(solvers).join(', ')}\n`);
    process.exit(2);
  }
  if (init) await init();
  let tmax = Infinity;
  const out = [];
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    const f = line.trim().split(/\s+/);
    if (f[0] === '#' && f[1] === 'tmax') { tmax = parseNumber(f[2]); return; }
    if (!f[0] || f[0][0] === '#') return;
    const c = parseCase(f);
    const r = c ? solver.solve(c, tmax) : 'unsupported';
    if (r === 'unsupported') { out.push(`${f[0]} unsupported`); return; }
    if (r.failed) { out.push(`${c.id} failed`); return; }
    out.push(`${c.id} ${r.cls} ${formatNumber(r.t)} ${formatNumber(r.target)} ${formatNumber(r.tolerance)}`);
  });
  await new Promise((resolve) => rl.on('close', resolve));
  if (cost.calls) out.push(`# engine-time ${cost.calls} ${cost.ns}`);
  if (out.length) process.stdout.write(out.join('\n') + '\n');
}

module.exports = { parseNumber, formatNumber, parseCase, planar, window, serve, engineTime };
