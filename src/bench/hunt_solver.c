/* hunt_solver.c: `toibench hunt` for an external solver: the global pass and the local search sent to it in batches. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "hunt_solver.h"
#include "toiref.h"

/* Cases per solver call in the global pass: a solver slow to start (a node
 * process, a Python interpreter) costs little per case on batches this size. */
#define BATCH 4096
/* Rounds of the local search are one solver call each: a few dozen calls
 * whatever the budget, unless a round would exceed ROUND_CASES proposals
 * (memory), in which case there are more rounds. */
#define MAX_ROUNDS 64
#define ROUND_CASES 65536

typedef struct search {
  const hunt_solver_args *a;
  hunt_list lists[HUNT_L_COUNT];
  uint64_t sent, failed, declined, stated, aimed, malfunctions, protocol_errors;
  int progress;
} search;

/* Scores the answer for fd->c as `run` does: fd->sc against the true contact
 * (the first table), fd->err against the target (the second table: the
 * solver's own, else --target-distance). Kappa and the ratio only when that
 * target is the true contact. A failed answer keeps only the exact class. */
static toi_status score(hunt_found *fd, const solver_answer *ans, const hunt_solver_args *a) {
  toi_ref ref;
  toi_status st = toi_ref_solve_engine(&ref, &fd->c, TOI_REF_FAST);
  if (st != TOI_OK) return st;
  fd->target = isfinite(ans->target) ? ans->target : a->delta;
  fd->err = fd->kappa = fd->ratio = NAN;
  fd->tkind = SCORE_OUT_OF_DOMAIN;
  if (ans->state != SOLVER_ANSWERED) {
    memset(&fd->sc, 0, sizeof fd->sc);
    fd->sc.ref_cls = ref.cls;
    fd->sc.t = fd->sc.ref_t = fd->sc.ulp = fd->sc.bits = NAN;
    return TOI_OK;
  }
  score_opts so = {a->so.tmax, fd->target, isfinite(ans->tolerance) ? ans->tolerance : 0, 1, TOI_REF_FAST};
  score_detail ss;
  st = score_answer(&ss, ans->r, TOI_FORWARD, 0, &fd->c, &ref, &so);
  if (st != TOI_OK) return st;
  fd->sc = ss.sc;
  fd->tkind = ss.target_kind;
  if (ss.target_timed) fd->err = ss.target_ulp;
  if (fd->target != 0 || !ss.sc.timed || !isfinite(ss.sc.ulp)) return TOI_OK;
  st = toi_ref_kappa_engine(&fd->kappa, &fd->c, TOI_FORWARD, TOI_REF_FAST);
  if (st == TOI_OK) fd->ratio = sweep_ratio(ss.sc.ulp, ss.sc.ref_t, fd->kappa);
  return st;
}

static const char *key_name(const hunt_found *f) {
  return f->by == HUNT_BY_RATIO ? "ratio" : f->target == 0 ? "ulp" : "ulp_t";
}

/* One solver call; what went wrong stays in ans[] (solver_run isolates it). */
static int call(search *h, const toi_case *cases, size_t n, solver_answer *ans) {
  solver_run_info info;
  if (solver_run(&h->a->s, cases, n, &h->a->so, ans, &info)) return -1;
  h->sent += n;
  h->malfunctions += info.malfunctions;
  h->protocol_errors += info.protocol_errors;
  for (size_t i = 0; i < n; i++) {
    h->failed += ans[i].state == SOLVER_FAILED;
    h->declined += ans[i].state == SOLVER_UNSUPPORTED;
    if (ans[i].state != SOLVER_ANSWERED) continue;
    h->stated += isfinite(ans[i].target);
    h->aimed += (isfinite(ans[i].target) ? ans[i].target : h->a->delta) != 0;
  }
  if (h->progress)
    fprintf(stderr, "\rtoibench hunt %s: %" PRIu64 " cases sent, %" PRIu64 " failed", h->a->s.name, h->sent,
            h->failed);
  return 0;
}

/* A failed answer joins the fail list; `order` numbers cases in the order sent. */
static void offer_failure(search *h, hunt_found *fd, uint64_t order, const char *why) {
  size_t len = strlen(fd->note);
  snprintf(fd->note + len, sizeof fd->note - len, ": %s", why);
  fd->index = order;
  hunt_list_offer(&h->lists[HUNT_L_FAIL], fd, h->a->keep, 1);
}

static int global_pass(search *h, uint64_t global, toi_case *cases, solver_answer *ans) {
  const hunt_solver_args *a = h->a;
  for (uint64_t lo = 0; lo < global; lo += BATCH) {
    size_t n = global - lo < BATCH ? (size_t)(global - lo) : BATCH, bin;
    for (size_t j = 0; j < n; j++)
      if (gen_case(&cases[j], NULL, &bin, a->g, lo + j) != TOI_OK) return -1;
    if (call(h, cases, n, ans)) return -1;
    for (size_t j = 0; j < n; j++) {
      uint64_t i = lo + j;
      hunt_found fd;
      memset(&fd, 0, sizeof fd);
      fd.c = cases[j];
      fd.index = i;
      if (ans[j].state == SOLVER_UNSUPPORTED) continue;
      if (score(&fd, &ans[j], a) != TOI_OK) return -1;
      if (ans[j].state == SOLVER_FAILED) {
        snprintf(fd.note, sizeof fd.note, "global pass, case %" PRIu64 " (%s)", i, fd.c.id);
        offer_failure(h, &fd, i, ans[j].why);
      } else {
        hunt_file(h->lists, &fd, fd.tkind, a->keep, i);
      }
    }
  }
  return 0;
}

/* Per candidate during the local search. */
typedef struct walk {
  toi_rng rng;
  double start;
  uint64_t raised;
  int has_flip, has_best;
  hunt_found flip, best;
} walk;

/* Each round: every candidate proposes `per` moves from its own generator,
 * all of them go to the solver in one call, and each candidate moves to its
 * best proposal (the earliest of equal keys) when that does not lower its key. */
static int local_search(search *h, hunt_found *cands, int ncands, uint64_t rounds, uint64_t per) {
  const hunt_solver_args *a = h->a;
  size_t cap = (size_t)ncands * per + 1; /* + 1: no zero-size allocation when there is no round */
  walk *w = calloc((size_t)ncands, sizeof *w);
  toi_case *props = malloc(cap * sizeof *props);
  solver_answer *ans = malloc(cap * sizeof *ans);
  uint64_t *from = malloc(cap * sizeof *from); /* candidate * per + proposal */
  int rc = -1;
  if (!w || !props || !ans || !from) goto done;
  for (int k = 0; k < ncands; k++) {
    toi_rng_seed_item(&w[k].rng, a->g->seed, HUNT_STREAM + (uint64_t)cands[k].by, cands[k].index);
    w[k].start = hunt_key(&cands[k]);
  }
  for (uint64_t r = 0; r < rounds; r++) {
    size_t m = 0;
    for (int k = 0; k < ncands; k++)
      for (uint64_t p = 0; p < per; p++) {
        toi_case c = cands[k].c;
        if (!hunt_perturb(&w[k].rng, &c)) continue;
        /* IDs unique within the call: a repeated ID would cost the subprocess protocol a second process. */
        snprintf(c.id, sizeof c.id, "%.32s.r%u.c%u.p%u", cands[k].c.id, (unsigned)(r % 100000),
                 (unsigned)(k % 1000), (unsigned)(p % 100000));
        from[m] = (uint64_t)k * per + p;
        props[m++] = c;
      }
    uint64_t base = h->sent;
    if (m && call(h, props, m, ans)) goto done;
    for (int k = 0; k < ncands; k++) w[k].has_best = 0;
    for (size_t j = 0; j < m; j++) {
      int k = (int)(from[j] / per);
      uint64_t p = from[j] % per;
      if (ans[j].state == SOLVER_UNSUPPORTED) continue;
      hunt_found fd = cands[k];
      fd.c = props[j];
      memcpy(fd.c.id, cands[k].c.id, sizeof fd.c.id);
      if (score(&fd, &ans[j], a) != TOI_OK) goto done;
      if (ans[j].state == SOLVER_FAILED) {
        snprintf(fd.note, sizeof fd.note,
                 "local search from global case %" PRIu64 " (%s), round %" PRIu64 ", proposal %" PRIu64
                 " (sent as %s)",
                 cands[k].index, cands[k].c.id, r + 1, p + 1, props[j].id);
        offer_failure(h, &fd, base + j, ans[j].why);
      } else if (hunt_misclassified(fd.tkind)) {
        if (w[k].has_flip) continue;
        w[k].flip = fd;
        snprintf(w[k].flip.note, sizeof w[k].flip.note,
                 "local search from global case %" PRIu64 " (%s, %s %.6g), round %" PRIu64 ", proposal %" PRIu64
                 " flipped the classification",
                 cands[k].index, cands[k].c.id, key_name(&cands[k]), hunt_key(&cands[k]), r + 1, p + 1);
        w[k].has_flip = 1;
      } else if (isfinite(fd.err) && !isnan(hunt_key(&fd)) &&
                 (!w[k].has_best || hunt_key(&fd) > hunt_key(&w[k].best))) {
        w[k].best = fd;
        w[k].has_best = 1;
      }
    }
    for (int k = 0; k < ncands; k++)
      if (w[k].has_best && hunt_key(&w[k].best) >= hunt_key(&cands[k])) {
        w[k].raised += hunt_key(&w[k].best) > hunt_key(&cands[k]);
        cands[k] = w[k].best;
      }
  }
  for (int k = 0; k < ncands; k++) {
    hunt_found *c = &cands[k];
    snprintf(c->note, sizeof c->note,
             "global pass case %" PRIu64 " (%s, %s %.6g), then local search: %" PRIu64 " rounds of %" PRIu64
             " proposals, %" PRIu64 " moves raised it, %s %.6g; kappa %.6g, ratio %.6g",
             c->index, c->c.id, key_name(c), w[k].start, rounds, per, w[k].raised, key_name(c), hunt_key(c),
             c->kappa, c->ratio);
  }
  /* Flips join the classification errors while there is room, as for formulations. */
  hunt_list *bad = &h->lists[HUNT_L_BAD];
  for (int k = 0; k < ncands; k++)
    if (w[k].has_flip && bad->n < a->keep) bad->items[bad->n++] = w[k].flip;
  rc = 0;
done:
  free(w);
  free(props);
  free(ans);
  free(from);
  return rc;
}

/* The solver's name as it can stand in a case ID. */
static void id_name(char *dst, size_t n, const char *name) {
  size_t j = 0;
  for (const char *s = name; *s && j + 1 < n && j < 40; s++)
    dst[j++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *s) ? *s : '-';
  dst[j] = 0;
}

static void write_list(FILE *f, const hunt_list *l, const char *name, const char *what, int failed) {
  for (int k = 0; k < l->n; k++) {
    const hunt_found *fd = &l->items[k];
    char line[400];
    if (failed)
      snprintf(line, sizeof line, "# ulp=nan bits=nan class=%s verdict=failed kind=failed",
               toi_class_name(fd->sc.ref_cls));
    else
      snprintf(line, sizeof line, "# ulp=%.6g bits=%.6g class=%s verdict=%s kind=%s target=%.6g ulp_t=%.6g kind_t=%s",
               fd->sc.ulp, fd->sc.bits, toi_class_name(fd->sc.ref_cls), toi_class_name(fd->sc.verdict),
               sweep_kind_name(fd->sc.kind), fd->target, fd->err, sweep_kind_name(fd->tkind));
    hunt_write_found(f, fd, name, what, k + 1, line);
  }
}

static void write_header(FILE *f, const search *h, uint64_t global, uint64_t rounds, uint64_t per, int ncands) {
  const hunt_solver_args *a = h->a;
  const char *name = a->s.name;
  char desc[512];
  gen_opts_format(desc, sizeof desc, a->g);
  /* The command as given, on one comment line whatever it holds. */
  fputs("# toibench hunt ", f);
  for (const char *p = a->spec; *p; p++) fputc((unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
  fprintf(f, " %s budget=%" PRIu64 " keep=%d timeout=%g", desc, a->budget, a->keep, a->so.timeout);
  if (isfinite(a->so.tmax)) fprintf(f, " tmax=%a", a->so.tmax);
  fprintf(f, " target-distance=%a\n", a->delta);
  fprintf(f,
          "# Worst cases of solver %s found by a random global pass over %" PRIu64 " cases (solver calls of\n"
          "# up to %d cases) and a local search of %" PRIu64 " rounds x %" PRIu64 " proposals around each of\n"
          "# the %d kept by ULP error or by error / (kappa 2^-53) (inputs moved by a few ulps; one solver\n"
          "# call per round): %" PRIu64 " cases sent to the solver.\n",
          name, global, BATCH, rounds, per, ncands, h->sent);
  if (h->aimed)
    fprintf(f,
            "# ULP errors ranked against the solver's target: its own where it states one (%" PRIu64 " answers),\n"
            "# else %.6g (--target-distance); %" PRIu64 " answers aim at a non-zero separation (no ratio).\n",
            h->stated, a->delta, h->aimed);
  else
    fprintf(f, "# ULP errors ranked against the true contact (target 0).\n");
  fprintf(f,
          "# The solver failed on %" PRIu64 " cases (%" PRIu64 " lost to crashes, hangs or protocol errors)\n"
          "# and declined %" PRIu64 ". Sampled maxima are lower bounds: the true worst error of %s may be larger.\n",
          h->failed, h->malfunctions, h->declined, name);
}

int hunt_solver(const hunt_solver_args *a) {
  uint64_t global = a->budget / 2;
  search *h = calloc(1, sizeof *h);
  toi_case *cases = malloc(BATCH * sizeof *cases);
  solver_answer *ans = malloc(BATCH * sizeof *ans);
  hunt_found *cands = calloc(2 * HUNT_MAXKEEP, sizeof *cands);
  hunt_list *best = calloc(2, sizeof *best); /* after the local search: by ulp, by ratio */
  int rc = EXIT_RUNTIME;
  if (!h || !cases || !ans || !cands || !best) {
    cli_error("hunt: out of memory");
    goto done;
  }
  h->a = a;
  h->progress = !a->quiet && isatty(2);
  if (global_pass(h, global, cases, ans)) {
    cli_error("hunt: solver %s: the run, the reference or scoring failed", a->s.name);
    goto done;
  }
  int ncands = 0;
  for (int k = HUNT_L_ULP; k <= HUNT_L_RATIO; k++)
    for (int i = 0; i < h->lists[k].n; i++) cands[ncands++] = h->lists[k].items[i];
  uint64_t rest = a->budget - global, rounds = 0, per = 0;
  if (ncands) {
    /* Within the budget: no round at all when it cannot give every kept case one proposal. */
    rounds = rest / (uint64_t)ncands;
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    per = rounds ? rest / (rounds * (uint64_t)ncands) : 0;
    if (per * (uint64_t)ncands > ROUND_CASES) {
      per = ROUND_CASES / (uint64_t)ncands;
      rounds = rest / (per * (uint64_t)ncands);
    }
    if (local_search(h, cands, ncands, rounds, per)) {
      cli_error("hunt: solver %s: the run, the reference or scoring failed", a->s.name);
      goto done;
    }
  }
  if (h->progress) fputc('\n', stderr);
  for (int k = 0; k < ncands; k++) hunt_list_offer(&best[cands[k].by], &cands[k], a->keep, 0);

  char name[48];
  id_name(name, sizeof name, a->s.name);
  cli_out w;
  if (cli_out_open(&w, a->out)) goto done;
  write_header(w.f, h, global, rounds, per, ncands);
  write_list(w.f, &best[HUNT_BY_ULP], name, "ulp", 0);
  write_list(w.f, &best[HUNT_BY_RATIO], name, "ratio", 0);
  write_list(w.f, &h->lists[HUNT_L_INF], name, "inf", 0);
  write_list(w.f, &h->lists[HUNT_L_BAD], name, "class", 0);
  write_list(w.f, &h->lists[HUNT_L_FAIL], name, "fail", 1);
  if (cli_out_commit(&w)) goto done;
  rc = EXIT_OK;
  if (!a->quiet) {
    fprintf(stderr, "hunt %s:", a->s.name);
    const hunt_found *mu = hunt_largest(best, 2, HUNT_BY_ULP), *mr = hunt_largest(best, 2, HUNT_BY_RATIO);
    if (mu) fprintf(stderr, " largest finite ULP error found %.6g (%s);", mu->err, mu->target == 0 ? "ulp" : "ulp_t");
    if (mr) fprintf(stderr, " largest error / (kappa 2^-53) found %.6g;", mr->ratio);
    fprintf(stderr,
            "\n  %d cases with a NaN or infinite time where a root exists, %d classification errors,\n"
            "  %" PRIu64 " failed cases, %" PRIu64 " declined.\n"
            "  Sampled maxima are lower bounds: the true worst error may be larger.\n",
            h->lists[HUNT_L_INF].n, h->lists[HUNT_L_BAD].n, h->failed, h->declined);
  }
  if (h->malfunctions || h->protocol_errors) {
    cli_error("solver %s: %" PRIu64 " case%s lost to crashes, hangs or protocol errors (the fail list shows the "
              "first); %" PRIu64 " protocol error%s outside any case",
              a->s.name, h->malfunctions, h->malfunctions == 1 ? "" : "s", h->protocol_errors,
              h->protocol_errors == 1 ? "" : "s");
    rc = EXIT_RUNTIME;
  }
done:
  free(h);
  free(cases);
  free(ans);
  free(cands);
  free(best);
  return rc;
}
