// protocol.js: the toibench subprocess solver protocol for the node engine adapters (read cases, write answers).
'use strict';

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

// The binary protocol's class codes (doc/validating.md): the index in this list; 16 unsupported, 17 failed.
const CLASS_CODES = ['none', 'overlap', 'static', 'contact', 'separating', 'miss', 'graze', 'hit'];

// Answers a batch, buf its request (the count, then n records of 8 + 16 w bytes, w the width of the
// records' numbers: 8 binary64, 4 binary32), as one buffer: the count, n records of 8 + 3 w bytes, the
// trailer (engine calls and nanoseconds). Every record is {dim, pa, va, ra, ma, pb, vb, rb, mb}.
function answerBinary(solver, buf, tmax, w) {
  if (w === 8 && LITTLE_ENDIAN) return answerBinary64(solver, buf, tmax);
  const get = w === 8 ? (o) => buf.readDoubleLE(o) : (o) => buf.readFloatLE(o);
  const n = Number(buf.readBigUInt64LE(0)), req = 8 + 16 * w, ans = 8 + 3 * w;
  const out = Buffer.alloc(8 + n * ans + 16);
  const put = w === 8 ? (x, o) => out.writeDoubleLE(x, o) : (x, o) => out.writeFloatLE(x, o);
  out.writeBigUInt64LE(BigInt(n), 0);
  for (let i = 0; i < n; i++) {
    const o = 8 + i * req, x = (k) => get(o + 8 + k * w);
    const c = {
      id: `#${i}`, dim: buf.readUInt32LE(o), pa: [x(0), x(1), x(2)], va: [x(3), x(4), x(5)], ra: x(6), ma: x(7),
      pb: [x(8), x(9), x(10)], vb: [x(11), x(12), x(13)], rb: x(14), mb: x(15),
    };
    const r = c.dim === 2 || c.dim === 3 ? solver.solve(c, tmax) : 'unsupported';
    const a = 8 + i * ans;
    if (r === 'unsupported') { out.writeUInt32LE(16, a); continue; }
    if (r.failed) { out.writeUInt32LE(17, a); continue; }
    const code = CLASS_CODES.indexOf(r.cls);
    out.writeUInt32LE(code < 0 ? 0xffffffff : code, a);
    // Flags: bit 0 a target, bit 1 a tolerance (the text answer's optional fields).
    const flags = (r.target !== undefined ? 1 : 0) | (r.target !== undefined && r.tolerance !== undefined ? 2 : 0);
    out.writeUInt32LE(flags, a + 4);
    put(r.t, a + 8);
    put(flags & 1 ? r.target : 0, a + 8 + w);
    put(flags & 2 ? r.tolerance : 0, a + 8 + 2 * w);
  }
  // The engine's cost since the last trailer.
  out.writeBigUInt64LE(BigInt(cost.calls), 8 + n * ans);
  out.writeBigUInt64LE(cost.ns, 8 + n * ans + 8);
  cost.calls = 0;
  cost.ns = 0n;
  return out;
}

const LITTLE_ENDIAN = require('os').endianness() === 'LE';

// answerBinary for binary64 records on a little-endian machine, the same bytes: the request copied once
// into 8-byte-aligned memory and read, and the answer written, through typed arrays (every field of both
// lies on a multiple of 8 bytes from the batch's start), not a Buffer call per number.
function answerBinary64(solver, buf, tmax) {
  const words = Math.floor(buf.length / 8);
  const inW = new Float64Array(words);
  new Uint8Array(inW.buffer).set(buf.subarray(0, 8 * words));
  const inU = new Uint32Array(inW.buffer);
  const n = Number(buf.readBigUInt64LE(0));
  const outW = new Float64Array(1 + 4 * n + 2);
  const outU = new Uint32Array(outW.buffer);
  const out = Buffer.from(outW.buffer);
  out.writeBigUInt64LE(BigInt(n), 0);
  for (let i = 0; i < n; i++) {
    const o = 1 + 17 * i, x = o + 1; // the record's word: dim, then its 16 numbers
    const c = {
      id: `#${i}`, dim: inU[2 * o], pa: [inW[x], inW[x + 1], inW[x + 2]], va: [inW[x + 3], inW[x + 4], inW[x + 5]],
      ra: inW[x + 6], ma: inW[x + 7], pb: [inW[x + 8], inW[x + 9], inW[x + 10]],
      vb: [inW[x + 11], inW[x + 12], inW[x + 13]], rb: inW[x + 14], mb: inW[x + 15],
    };
    const r = c.dim === 2 || c.dim === 3 ? solver.solve(c, tmax) : 'unsupported';
    const a = 1 + 4 * i;
    if (r === 'unsupported') { outU[2 * a] = 16; continue; }
    if (r.failed) { outU[2 * a] = 17; continue; }
    const code = CLASS_CODES.indexOf(r.cls);
    outU[2 * a] = code < 0 ? 0xffffffff : code;
    const flags = (r.target !== undefined ? 1 : 0) | (r.target !== undefined && r.tolerance !== undefined ? 2 : 0);
    outU[2 * a + 1] = flags;
    outW[a + 1] = r.t;
    outW[a + 2] = flags & 1 ? r.target : 0;
    outW[a + 3] = flags & 2 ? r.tolerance : 0;
  }
  out.writeBigUInt64LE(BigInt(cost.calls), 8 + 32 * n);
  out.writeBigUInt64LE(cost.ns, 8 + 32 * n + 8);
  cost.calls = 0;
  cost.ns = 0n;
  return out;
}

// Answers the case lines of text (the text protocol) as one string.
function answerText(solver, text, tmax) {
  const out = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (!f[0] || f[0][0] === '#') continue;
    const c = parseCase(f);
    const r = c ? solver.solve(c, tmax) : 'unsupported';
    if (r === 'unsupported') { out.push(`${f[0]} unsupported`); continue; }
    if (r.failed) { out.push(`${c.id} failed`); continue; }
    out.push(`${c.id} ${r.cls} ${formatNumber(r.t)} ${formatNumber(r.target)} ${formatNumber(r.tolerance)}`);
  }
  if (cost.calls) out.push(`# engine-time ${cost.calls} ${cost.ns}`);
  return out.length ? out.join('\n') + '\n' : '';
}

// Runs one solver: solve(c, tmax) returns {cls, t, target, tolerance}, {failed: true} or 'unsupported'.
// With --manifest, prints the line toibench's engine registry reads instead. The header's offer of the
// binary protocol is taken at once ('# binary binary64': records of doubles, which hold a binary32
// engine's inputs and its answers computed in JavaScript's double exactly, as the text protocol does);
// toibench then starts the script again with '# binary 1 binary64' as the header's last line.
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
  // The header is read before the engine is loaded: a process that only answers the offer stays cheap.
  let buf = Buffer.alloc(0), tmax = Infinity, mode = null, w = 8, busy = Promise.resolve();
  const header = () => {
    // The '#' lines at the start of buf; mode once a line says it (or a case line starts).
    for (;;) {
      const nl = buf.indexOf(10);
      if (nl < 0) return;
      const line = buf.toString('latin1', 0, nl);
      if (line[0] !== '#') { mode = 'text'; return; }
      buf = buf.subarray(nl + 1);
      const f = line.trim().split(/\s+/);
      if (f[1] === 'tmax') tmax = parseNumber(f[2]);
      else if (f[1] === 'binary' && f[2] === 'offered') { mode = 'ask'; return; }
      else if (f[1] === 'binary' && f[2] === '1') { mode = 'binary'; w = f[3] === 'binary32' ? 4 : 8; return; }
    }
  };
  // Binary: every whole batch in buf is answered as soon as it is there (the process serves batch after
  // batch until its input ends).
  // The chunks that arrived after buf, joined only once a whole batch is there (joining at every chunk copies
  // a batch of n records n / 64 KiB times over).
  let more = [], moreLen = 0;
  const batches = () => {
    for (;;) {
      if (buf.length < 8 && more.length) { buf = Buffer.concat([buf, ...more]); more = []; moreLen = 0; }
      if (buf.length < 8) return;
      const size = 8 + Number(buf.readBigUInt64LE(0)) * (8 + 16 * w);
      if (buf.length + moreLen < size) return;
      if (buf.length < size) { buf = Buffer.concat([buf, ...more]); more = []; moreLen = 0; }
      process.stdout.write(answerBinary(solver, buf.subarray(0, size), tmax, w));
      buf = buf.subarray(size);
    }
  };
  const text = [];
  await new Promise((resolve) => {
    process.stdin.on('data', (d) => {
      if (mode === 'text') { text.push(d); return; }
      if (mode === 'binary') { more.push(d); moreLen += d.length; }
      else buf = buf.length ? Buffer.concat([buf, d]) : d;
      if (mode === null) header();
      if (mode === 'ask') { resolve(); return; }
      if (mode === 'text') { text.push(buf); buf = Buffer.alloc(0); }
      if (mode === 'binary') busy = busy.then(async () => { if (init) { await init(); init = null; } batches(); });
    });
    process.stdin.on('end', resolve);
  });
  if (mode === 'ask') {
    process.stdin.destroy();
    process.stdout.write('# binary binary64\n');
    return;
  }
  if (mode === 'binary') { await busy; return; }
  if (init) await init();
  process.stdout.write(answerText(solver, Buffer.concat(text).toString('latin1'), tmax));
}

module.exports = { parseNumber, formatNumber, parseCase, planar, window, serve, engineTime };
