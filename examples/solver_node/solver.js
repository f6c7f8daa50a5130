#!/usr/bin/env node
// solver.js: an example solver speaking toibench's subprocess protocol, in JavaScript (node, no packages).
//
// Run: toibench run --solver-cmd 'node examples/solver_node/solver.js' cases/degenerate.cases
//
// toibench writes case format v1 lines on stdin ('#' lines are comments; '# tmax T' gives the step)
// and reads one 'ID CLASS T' line per case from stdout, in any order; or, since this solver answers the
// header's offer, fixed-size binary records both ways (answerBinary below). Numbers come as C99 hex
// floats; JavaScript cannot read those, so parseNumber below does, exactly. Times go back as
// String(t), the shortest decimal that reads back as the same double.
'use strict';

// An exact reader of C99 hex floats (0x1.8p+1) and of decimals, nan and inf.
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
  // Scale by powers of two in steps that stay in the normal range: exact.
  while (e > 0) { const k = Math.min(e, 1000); x *= 2 ** k; e -= k; }
  while (e < 0) { const k = Math.max(e, -1000); x *= 2 ** k; e -= k; }
  return m[1] === '-' ? -x : x;
}

// a t^2 + 2 b t + c = 0 with a = v.v, b = s.v, c = s.s - R^2; first root c / (-b + sqrt(D)).
function solve(pa, va, ra, pb, vb, rb, tmax) {
  let a = 0, b = 0, ss = 0;
  for (let k = 0; k < pa.length; k++) {
    const s = pb[k] - pa[k], v = vb[k] - va[k];
    a += v * v; b += s * v; ss += s * s;
  }
  const R = ra + rb, c = ss - R * R;
  if (c < 0) return ['overlap', NaN];
  if (a === 0) return ['static', NaN];
  if (b >= 0) return ['separating', NaN];
  if (c === 0) return ['contact', 0];
  const D = b * b - a * c;
  if (D < 0) return ['miss', NaN];
  const t = c / (-b + Math.sqrt(D));
  if (t > tmax) return ['none', NaN];
  return [D === 0 ? 'graze' : 'hit', t];
}

// The binary protocol (doc/validating.md): after the header, a little-endian uint64 count and that many
// records of 136 bytes (uint32 dim, a reserved uint32, then pA vA rA mA pB vB rB mB as 16 doubles, z = 0 in
// 2D); the answer is the count, a 32-byte record per case in the same order (uint32 class code, the index
// in CLASSES; uint32 flags, 0: no target declared; T, target, tolerance as doubles) and a 16-byte trailer
// (two uint64: engine calls and nanoseconds, 0 0 when not measured); then the next batch, if any.
const CLASSES = ['none', 'overlap', 'static', 'contact', 'separating', 'miss', 'graze', 'hit'];
function answerBinary(buf, tmax) {
  const n = Number(buf.readBigUInt64LE(0));
  const out = Buffer.alloc(8 + 32 * n + 16);
  out.writeBigUInt64LE(BigInt(n), 0);
  for (let i = 0; i < n; i++) {
    const o = 8 + 136 * i, dim = buf.readUInt32LE(o), x = (k) => buf.readDoubleLE(o + 8 + 8 * k);
    const v = (k) => [x(k), x(k + 1), x(k + 2)].slice(0, dim);
    const [cls, t] = solve(v(0), v(3), x(6), v(8), v(11), x(14), tmax);
    out.writeUInt32LE(CLASSES.indexOf(cls), 8 + 32 * i);
    out.writeDoubleLE(t, 8 + 32 * i + 8);
  }
  return out;
}

// Header lines come first: '# tmax T', then '# binary offered' (the offer, answered here with
// '# binary binary64' and an exit: toibench starts the solver again, in binary) or '# binary 1 binary64'
// (binary records follow, batch after batch until the input ends); any other line starts the text
// protocol's case lines.
let tmax = Infinity, mode = null, buf = Buffer.alloc(0);
function header() {
  for (;;) {
    const nl = buf.indexOf(10);
    if (nl < 0) return;
    const line = buf.toString('latin1', 0, nl);
    if (line[0] !== '#') { mode = 'text'; return; }
    buf = buf.subarray(nl + 1);
    const f = line.trim().split(/\s+/);
    if (f[1] === 'tmax') tmax = parseNumber(f[2]);
    else if (line === '# binary offered') { mode = 'ask'; return; }
    else if (line === '# binary 1 binary64') { mode = 'binary'; return; }
  }
}
process.stdin.on('data', (d) => {
  buf = buf.length ? Buffer.concat([buf, d]) : d;
  if (mode === null) header();
  if (mode === 'ask') {
    mode = 'done';
    process.stdin.destroy();
    process.stdout.write('# binary binary64\n');
  }
  // Every whole batch is answered as soon as it is there.
  while (mode === 'binary' && buf.length >= 8 && buf.length >= 8 + 136 * Number(buf.readBigUInt64LE(0))) {
    const size = 8 + 136 * Number(buf.readBigUInt64LE(0));
    process.stdout.write(answerBinary(buf.subarray(0, size), tmax));
    buf = buf.subarray(size);
  }
});
process.stdin.on('end', () => {
  if (mode === 'binary' || mode === 'done') return;
  const out = [];
  for (const line of buf.toString('latin1').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (!f[0] || f[0][0] === '#') continue;
    const id = f[0], dim = Number(f[1]);
    if ((dim !== 2 && dim !== 3) || f.length !== 2 + 2 * (2 * dim + 2)) { out.push(`${id} unsupported`); continue; }
    const x = f.slice(2).map(parseNumber);
    const a = x.slice(0, 2 * dim + 2), b = x.slice(2 * dim + 2);
    const [cls, t] = solve(a.slice(0, dim), a.slice(dim, 2 * dim), a[2 * dim], b.slice(0, dim),
      b.slice(dim, 2 * dim), b[2 * dim], tmax);
    out.push(`${id} ${cls} ${Number.isNaN(t) ? 'nan' : String(t)}`);
  }
  // One write at the end: a pipe is fastest fed in one piece.
  process.stdout.write(out.length ? out.join('\n') + '\n' : '');
});
