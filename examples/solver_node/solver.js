#!/usr/bin/env node
// solver.js: an example solver speaking toibench's subprocess protocol, in JavaScript (node, no packages).
//
// Run: toibench run --solver-cmd 'node examples/solver_node/solver.js' cases/degenerate.cases
//
// toibench writes case format v1 lines on stdin ('#' lines are comments; '# tmax T' gives the step)
// and reads one 'ID CLASS T' line per case from stdout, in any order. Numbers come as C99 hex
// floats; JavaScript cannot read those, so parseNumber below does, exactly. Times go back as
// String(t), the shortest decimal that reads back as the same double.
'use strict';
const readline = require('readline');

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

let tmax = Infinity;
const out = [];
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  const f = line.trim().split(/\s+/);
  if (f[0] === '#' && f[1] === 'tmax') { tmax = parseNumber(f[2]); return; }
  if (!f[0] || f[0][0] === '#') return;
  const id = f[0], dim = Number(f[1]);
  if ((dim !== 2 && dim !== 3) || f.length !== 2 + 2 * (2 * dim + 2)) { out.push(`${id} unsupported`); return; }
  const x = f.slice(2).map(parseNumber);
  const a = x.slice(0, 2 * dim + 2), b = x.slice(2 * dim + 2);
  const [cls, t] = solve(a.slice(0, dim), a.slice(dim, 2 * dim), a[2 * dim], b.slice(0, dim),
    b.slice(dim, 2 * dim), b[2 * dim], tmax);
  out.push(`${id} ${cls} ${Number.isNaN(t) ? 'nan' : String(t)}`);
});
// One write at the end: a pipe is fastest fed in one piece.
rl.on('close', () => { process.stdout.write(out.length ? out.join('\n') + '\n' : ''); });
