/* candidate.c: the four kinds of candidate behind one batch solve call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "candidate.h"
#include "formulations.h"
#include "solvers.h"

/* Not a memset: the speed of a formulation is measured through this call. */
static void answered(toi_answer *a, toi_result r) {
  a->state = TOI_ANSWERED;
  a->malfunction = 0;
  a->why[0] = 0;
  a->r = r;
  a->target = 0; /* in-process candidates aim at touching */
  a->tolerance = NAN;
}

static toi_status formulation_solve(const toi_candidate *self, const toi_case *cases, size_t n,
                                    const toi_solve_opts *o, toi_answer *ans, toi_run_info *info) {
  (void)o;
  memset(info, 0, sizeof *info);
  /* fn: the variant in the candidate's precision, when it is not binary64. */
  toi_solve_fn solve = self->fn ? self->fn : self->formulation->solve;
  /* In binary64, the formulation's batch solve where it has one: the same
     answers, several cases a call. */
  toi_batch_fn batch = self->fn ? NULL : toi_formulation_batch(self->formulation);
  if (batch) {
    toi_result r[256];
    for (size_t i = 0; i < n; i += 256) {
      size_t m = n - i < 256 ? n - i : 256;
      batch(&cases[i], m, r);
      for (size_t j = 0; j < m; j++) answered(&ans[i + j], r[j]);
    }
    return TOI_OK;
  }
  for (size_t i = 0; i < n; i++) answered(&ans[i], solve(&cases[i]));
  return TOI_OK;
}

static toi_status function_solve(const toi_candidate *self, const toi_case *cases, size_t n,
                                 const toi_solve_opts *o, toi_answer *ans, toi_run_info *info) {
  (void)o;
  memset(info, 0, sizeof *info);
  for (size_t i = 0; i < n; i++) answered(&ans[i], self->fn(&cases[i]));
  return TOI_OK;
}

/* A plug-in (in a child process) or a command: the solver hosts. The
   candidate's name, which a run may have made unique, names it in messages. */
static toi_status external_solve(const toi_candidate *self, const toi_case *cases, size_t n,
                                 const toi_solve_opts *o, toi_answer *ans, toi_run_info *info) {
  solver_def *d = malloc(sizeof *d);
  if (!d) {
    toi_msgf(o->msg, "solver %s: out of memory", self->name);
    return TOI_ERR_NOMEM;
  }
  *d = *(const solver_def *)self->impl;
  snprintf(d->name, sizeof d->name, "%s", self->name);
  d->precision = self->precision;
  int rc = solver_run(d, cases, n, o, ans, info);
  /* What the solver asked for (the binary protocol) holds for its later calls,
     and a binary solver's process serves them. */
  ((solver_def *)self->impl)->binary = d->binary;
  ((solver_def *)self->impl)->session = d->session;
  ((solver_def *)self->impl)->plug = d->plug;
  free(d);
  return rc ? TOI_ERR_IO : TOI_OK;
}

void toi_candidate_formulation(toi_candidate *c, const toi_formulation *f) {
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", f->name);
  c->source = f->source;
  c->summary = f->summary;
  c->direction = f->direction;
  c->domain = f->domain;
  c->solve = formulation_solve;
  c->formulation = f;
}

toi_status toi_candidate_formulation_prec(toi_candidate *c, const toi_formulation *f, toi_precision q) {
  toi_candidate_formulation(c, f);
  if (q == TOI_BINARY64) return TOI_OK;
  toi_solve_fn v = toi_formulation_solver(f, q);
  if (!v) return TOI_ERR_RANGE;
  c->fn = v;
  c->precision = q;
  return TOI_OK;
}

void toi_candidate_function(toi_candidate *c, const char *name, toi_case_fn fn, toi_direction dir,
                            unsigned domain) {
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->source = c->summary = "";
  c->direction = dir;
  c->domain = domain;
  c->solve = function_solve;
  c->fn = fn;
}

static void point_external(toi_candidate *c) {
  const solver_def *d = c->impl;
  c->source = d->kind == SOLVER_PLUGIN ? d->path : d->command;
  c->summary = d->summary;
}

/* An external candidate owning a copy of d: TOI_OK or TOI_ERR_NOMEM. */
static toi_status from_def(toi_candidate *c, const solver_def *d) {
  memset(c, 0, sizeof *c);
  solver_def *own = malloc(sizeof *own);
  if (!own) return TOI_ERR_NOMEM;
  *own = *d;
  snprintf(c->name, sizeof c->name, "%s", d->name);
  c->direction = TOI_FORWARD;
  c->flags = TOI_CAND_OUT_OF_PROCESS | TOI_CAND_EXTERNAL;
  c->solve = external_solve;
  c->impl = own;
  c->precision = d->precision;
  point_external(c);
  return TOI_OK;
}

/* Candidates of every definition in v[0..n-1] into *out: TOI_OK or
   TOI_ERR_NOMEM (*out NULL). */
static toi_status from_defs(toi_candidate **out, const solver_def *v, size_t n) {
  *out = calloc(n ? n : 1, sizeof **out);
  if (!*out) return TOI_ERR_NOMEM;
  for (size_t i = 0; i < n; i++)
    if (from_def(&(*out)[i], &v[i]) != TOI_OK) {
      for (size_t j = 0; j < i; j++) toi_candidate_free(&(*out)[j]);
      free(*out);
      *out = NULL;
      return TOI_ERR_NOMEM;
    }
  return TOI_OK;
}

toi_status toi_candidate_find(toi_candidate *c, const char *name, const toi_msg *msg) {
  if (!c || !name) return TOI_ERR_RANGE;
  const toi_formulation *f = toi_formulation_find(name);
  if (f) {
    toi_candidate_formulation(c, f);
    return TOI_OK;
  }
  solver_def *d = malloc(sizeof *d);
  if (!d) return TOI_ERR_NOMEM;
  toi_status rc = solvers_find_engine(name, d, msg) ? TOI_ERR_RANGE : from_def(c, d);
  free(d);
  return rc;
}

toi_status toi_candidate_command(toi_candidate *c, const char *command) {
  return toi_candidate_command_prec(c, command, TOI_BINARY64);
}

toi_status toi_candidate_command_prec(toi_candidate *c, const char *command, toi_precision q) {
  if (!c || !command || !toi_precision_get(q)) return TOI_ERR_RANGE;
  solver_def *d = malloc(sizeof *d);
  if (!d) return TOI_ERR_NOMEM;
  solvers_from_command(command, d);
  d->precision = q;
  toi_status rc = from_def(c, d);
  free(d);
  return rc;
}

toi_status toi_candidates_plugin(toi_candidate **out, size_t *count, const char *arg, const toi_msg *msg,
                                 char *path_out, size_t path_sz) {
  return toi_candidates_plugin_timeout(out, count, arg, SOLVER_LOAD_TIMEOUT, msg, path_out, path_sz);
}

toi_status toi_candidates_plugin_timeout(toi_candidate **out, size_t *count, const char *arg, double timeout,
                                         const toi_msg *msg, char *path_out, size_t path_sz) {
  if (!out || !count || !arg) return TOI_ERR_RANGE;
  solver_def *v;
  char err[600];
  *out = NULL;
  *count = 0;
  int k = solvers_from_plugin_arg(arg, timeout, &v, err, sizeof err, path_out, path_sz);
  if (k < 0) {
    toi_msgf(msg, "%s", err);
    return TOI_ERR_INPUT;
  }
  toi_status rc = from_defs(out, v, (size_t)k);
  free(v);
  if (rc != TOI_OK) {
    toi_msgf(msg, "out of memory");
    return rc;
  }
  *count = (size_t)k;
  return TOI_OK;
}

toi_status toi_candidates_engines(toi_candidate **out, size_t *count, const toi_msg *msg) {
  if (!out || !count) return TOI_ERR_RANGE;
  solver_def *v;
  *count = 0;
  size_t n = solvers_engines(&v, msg);
  toi_status rc = from_defs(out, v, n);
  free(v);
  if (rc == TOI_OK) *count = n;
  return rc;
}

toi_status toi_candidate_copy(toi_candidate *dst, const toi_candidate *src) {
  *dst = *src;
  if (!src->impl) return TOI_OK;
  solver_def *own = malloc(sizeof *own);
  if (!own) return TOI_ERR_NOMEM;
  *own = *(const solver_def *)src->impl;
  own->session = NULL; /* a process of its own */
  own->plug = NULL;
  dst->impl = own;
  point_external(dst);
  return TOI_OK;
}

void toi_candidate_selector(const toi_candidate *c, char *buf, size_t n) {
  const solver_def *s = c->impl;
  if (!s || s->engine)
    snprintf(buf, n, "-f %s", c->name);
  else if (s->kind == SOLVER_PLUGIN)
    snprintf(buf, n, "--solver %s:%s", s->path, s->symbol);
  else
    snprintf(buf, n, "--solver-cmd '%s'", s->command);
}

void toi_candidate_free(toi_candidate *c) {
  if (c->impl) {
    solver_cmd_session_end(((solver_def *)c->impl)->session);
    solver_plugin_session_end(((solver_def *)c->impl)->plug);
  }
  free(c->impl);
  c->impl = NULL;
}

toi_round_state toi_candidate_input(toi_case *out, const toi_case *c, toi_precision q) {
  if (q == TOI_BINARY64) {
    *out = *c;
    return TOI_ROUND_SAME;
  }
  return toi_case_round(out, c, q);
}

/* Cases held on the stack for small batches (the sweep calls one case at a time). */
#define ROUND_LOCAL 8

/* A candidate in another precision: the cases rounded to it, those that
   overflow left out (answered unsupported), the answers put back in order. */
static toi_status run_rounded(const toi_candidate *c, const toi_case *cases, size_t n, const toi_solve_opts *o,
                       toi_answer *ans, toi_run_info *info) {
  toi_case local[ROUND_LOCAL], *in = local;
  toi_answer alocal[ROUND_LOCAL], *out = alocal;
  size_t *at = NULL, localat[ROUND_LOCAL];
  if (n > ROUND_LOCAL) {
    in = malloc(n * sizeof *in);
    out = malloc(n * sizeof *out);
    at = malloc(n * sizeof *at);
    if (!in || !out || !at) {
      free(in), free(out), free(at);
      toi_msgf(o ? o->msg : NULL, "solver %s: out of memory", c->name);
      return TOI_ERR_NOMEM;
    }
  } else {
    at = localat;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (toi_case_round(&in[m], &cases[i], c->precision) >= 0) {
      at[m++] = i;
      continue;
    }
    memset(&ans[i], 0, sizeof ans[i]);
    ans[i].state = TOI_UNSUPPORTED;
    ans[i].r.t = ans[i].target = ans[i].tolerance = NAN;
    snprintf(ans[i].why, sizeof ans[i].why, "a number overflows %s", toi_precision_name(c->precision));
  }
  toi_status rc = m ? c->solve(c, in, m, o, out, info) : (memset(info, 0, sizeof *info), TOI_OK);
  for (size_t k = 0; k < m && rc == TOI_OK; k++) ans[at[k]] = out[k];
  if (n > ROUND_LOCAL) free(in), free(out), free(at);
  return rc;
}

toi_status toi_candidate_run(const toi_candidate *c, const toi_case *cases, size_t n, const toi_solve_opts *o,
                      toi_answer *ans, toi_run_info *info) {
  if (c->precision != TOI_BINARY64) return run_rounded(c, cases, n, o, ans, info);
  return c->solve(c, cases, n, o, ans, info);
}

const char *toi_fail_cause_name(toi_fail_cause c) {
  static const char *const names[TOI_CAUSE_COUNT] = {"-", "protocol", "crash", "hang", "declared", "range"};
  return (unsigned)c < TOI_CAUSE_COUNT ? names[c] : "invalid";
}
