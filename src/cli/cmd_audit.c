/* cmd_audit.c: `toibench audit`, each formulation's collision response against the exact one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_outcheck.h"
#include "audit.h"

static void help(void) {
  printf(
      "Usage: toibench audit [-f NAMES] [--restitution E] [--precision P] [--rows FILE] [-o FILE]\n"
      "                      [-j N] FILE...\n"
      "Audits what an engine does with each formulation's time of impact T. For every case the\n"
      "certified reference classifies as hit or contact, and every formulation that also\n"
      "reports a contact (a hit, graze or contact verdict with a finite T):\n"
      "  double pipeline  move both balls to T, n = (pB - pA)/|pB - pA|,\n"
      "                   j = -(1 + E) ((vB - vA).n) / (1/mA + 1/mB),\n"
      "                   vA' = vA - j n / mA, vB' = vB + j n / mB, all in double;\n"
      "  exact pipeline   at the exact root t* (where |pB - pA| = R exactly) in GMP/MPFR,\n"
      "                   rounded to double only at the end.\n"
      "Metrics per case (from the double pipeline's numbers taken as exact):\n"
      "  gap      (|pB(T) - pA(T)| - R)/R; negative is penetration\n"
      "  ke_err   (KE after - exact KE after)/KE before; the exact change is 0 for E = 1 and\n"
      "           -(1 - E^2) mu (v.n)^2 / 2 otherwise (mu = mA mB/(mA + mB))\n"
      "  mom_err  |P' - P| / (|mA vA| + |mB vB|)\n"
      "  angle    radians between the double normal and the exact one\n"
      "  ulp      ULP error of each post-collision velocity component against the exact one\n"
      "           (ulp as in 'toibench run'); ulp_max is the largest over the components\n"
      "Summary per formulation: median, p99 and max of |metric| with the case that reaches the\n"
      "max, the most negative gap, and the count of penetrations beyond 1e-12 R. A response\n"
      "whose positions, normal or velocities are not finite (the double pipeline overflowed,\n"
      "e.g. with masses near DBL_MAX) is counted apart, with the first such case, and its\n"
      "undefined metrics are left out of the statistics ('-' when no value is left).\n"
      "  -f NAMES          comma-separated forward formulations, or 'all' (default: every\n"
      "                    forward one; reverse-time formulations have no response to audit)\n"
      "  --restitution E   coefficient of restitution in [0, 1] (default 1)\n"
      "  --precision P     binary64 (default) or binary32: every case is rounded to P (cases\n"
      "                    with a number overflowing there, or a mass rounding to 0, are left\n"
      "                    out and counted), each formulation's P variant gives T, and the\n"
      "                    pipeline above runs in P (E rounded to P); the exact pipeline is\n"
      "                    that of the rounded case, so input rounding is never charged. The\n"
      "                    velocity ULPs are then P's: ulp(x) = 2^(max(e, emin) - p + 1)\n"
      "  --rows FILE       one line per case and formulation, after a '#' header naming the\n"
      "                    columns: id formulation class T gap ke_err mom_err angle ulp_max\n"
      "                    ulp_vA.x ulp_vA.y ulp_vA.z ulp_vB.x ulp_vB.y ulp_vB.z\n"
      "                    (T as a hex float; the rest %%.6g; nan for a 2D case's z)\n"
      "  -o FILE           write the summary to FILE instead of stdout\n"
      "  -j N              threads (default: the number of online cores); the outputs are\n"
      "                    the same for any N: the files are read and audited a block at a\n"
      "                    time, in memory that does not grow with them (the metrics are\n"
      "                    kept, 8 MB of them in memory, the rest in temporary files of\n"
      "                    TMPDIR, so that medians and p99 stay exact)\n"
      "Outputs appear only when complete; invalid input writes nothing (exit 3).\n");
}

static void print_row_num(FILE *f, double x) {
  fputc(' ', f);
  if (isnan(x)) fputs("nan", f);
  else cli_print_g6(f, x);
}

/* --rows: one line per audited case and formulation */
static void write_row(FILE *f, const toi_audit_row *row) {
  const toi_resp_audit *a = &row->a;
  fprintf(f, "%s %s %s ", row->c->id, row->f->name, toi_class_name(row->cls));
  cli_print_hex(f, row->t);
  print_row_num(f, a->gap);
  print_row_num(f, a->ke_err);
  print_row_num(f, a->mom_err);
  print_row_num(f, a->angle);
  print_row_num(f, a->ulp_max);
  for (int side = 0; side < 2; side++)
    for (int d = 0; d < 3; d++) print_row_num(f, d < row->c->dim ? a->ulp[side * row->c->dim + d] : NAN);
  fputc('\n', f);
}

/* The IDs of the cases an audit names for one formulation (its witnesses). */
typedef struct audit_ids {
  char first_nonfinite[TOI_ID_MAX + 1], min_gap[TOI_ID_MAX + 1], max[TOI_AUDIT_METRICS][TOI_ID_MAX + 1];
} audit_ids;

static void print_summary(FILE *f, const toi_audit *au, const audit_ids *ids) {
  fprintf(f, "# toibench audit: %zu cases, %zu exact hits or contacts, restitution %.6g", au->cases,
          au->contacts, au->restitution);
  /* binary64 keeps the header it always had */
  if (au->precision != TOI_BINARY64)
    fprintf(f, ", precision %s (%zu cases changed by rounding, %zu not representable; ulp in %s)",
            toi_precision_name(au->precision), au->rounded, au->unrepresentable,
            toi_precision_name(au->precision));
  fputc('\n', f);
  for (int k = 0; k < au->nforms; k++) {
    const toi_audit_form *s = &au->forms[k];
    fprintf(f, "\n%s: %zu audited, %zu not reported as contacts, %zu without a normal, "
               "%zu penetrations beyond 1e-12 R\n",
            s->f->name, s->audited, s->not_reported, s->failed, s->penetrations);
    if (s->nonfinite)
      fprintf(f, "  %zu with a non-finite response (the double pipeline overflowed), first at %s\n", s->nonfinite,
              ids[k].first_nonfinite);
    if (!s->audited) continue;
    fprintf(f, "  %-8s %12s %12s %12s  %s\n", "metric", "median", "p99", "max", "worst case");
    for (int m = 0; m < TOI_AUDIT_METRICS; m++) {
      const toi_audit_stat *st = &s->stat[m];
      if (st->n == 0)
        fprintf(f, "  %-8s %12s %12s %12s  %s\n", toi_audit_metric_name(m), "-", "-", "-", "-");
      else
        fprintf(f, "  %-8s %12.4g %12.4g %12.4g  %s\n", toi_audit_metric_name(m), st->median, st->p99,
                st->max, ids[k].max[m]);
    }
    if (isnan(s->min_gap))
      fprintf(f, "  most negative gap -\n");
    else
      fprintf(f, "  most negative gap %.6g at %s\n", s->min_gap, ids[k].min_gap);
  }
}

/* The options: -f, --restitution, --rows, -o, -j and the case files. Returns
   EXIT_OK with *fs and *nf set (reverse formulations left out of 'all',
   refused by name), or the exit status to end with. */
static int audit_options(int argc, char **argv, cli_args *args, double *E, const toi_formulation ***fs,
                         int *nf, int *jobs) {
  if (cli_args_init(args, argc)) return EXIT_RUNTIME;
  for (int i = 1; i < argc; i++) {
    int t = cli_take_jobs("audit", argc, argv, &i, jobs);
    if (t < 0) {
      cli_args_free(args);
      return EXIT_USAGE;
    }
    if (t) continue;
    if (!strcmp(argv[i], "--restitution") && i + 1 < argc) {
      const char *v = argv[++i];
      if (cli_parse_double(v, E) || !(*E >= 0 && *E <= 1)) {
        cli_args_free(args);
        return cli_usage_error("audit", "--restitution wants a number in [0, 1], got '%s'", v);
      }
      continue;
    }
    int r = cli_args_take(args, "audit", CLI_OPT_OUT | CLI_OPT_ROWS | CLI_OPT_NAMES | CLI_OPT_PRECISION,
                          argc, argv, &i);
    if (r != CLI_TAKEN) return cli_args_stop(args, r, help);
  }
  if (args->nfiles == 0) {
    cli_args_free(args);
    return cli_usage_error("audit", "no case file given");
  }
  const char *names = args->names;
  *nf = cli_parse_formulations("audit", names, fs);
  if (*nf < 0) {
    cli_args_free(args);
    return EXIT_USAGE;
  }
  /* reverse formulations answer another question: skip them in 'all', refuse them by name */
  int keep = 0;
  for (int i = 0; i < *nf; i++) {
    if ((*fs)[i]->direction == TOI_FORWARD) (*fs)[keep++] = (*fs)[i];
    else if (names && strcmp(names, "all")) {
      int rc = cli_usage_error("audit", "'%s' answers in reverse time: it has no forward contact to resolve",
                               (*fs)[i]->name);
      free(*fs);
      cli_args_free(args);
      return rc;
    }
  }
  *nf = keep;
  return EXIT_OK;
}

/* ---- the files streamed: each block audited on its own, the blocks merged in input order ---- */

/* A metric's value of one audited pair and its case in the block. */
typedef struct audit_val {
  double v;
  size_t ci;
} audit_val;

typedef struct audit_slot {
  toi_audit au;         /* the block's audit */
  int have;
  audit_val **vals;     /* [formulation * TOI_AUDIT_METRICS + metric] */
  size_t *nv, *cap;
  FILE *rows;
  int nomem;
} audit_slot;

typedef struct audit_stream {
  const cli_args *args;
  const toi_formulation **fs;
  int nf;
  double E;
  audit_slot *slots;
  toi_audit acc;        /* the whole run's figures, quantiles apart */
  audit_ids *ids;
  toi_qstream *q;       /* [formulation * TOI_AUDIT_METRICS + metric] */
  cli_out rowsf;
  int rows_open;
} audit_stream;

static void keep_val(audit_slot *s, int j, double v, size_t ci) {
  if (s->nv[j] == s->cap[j]) {
    size_t cap = s->cap[j] ? 2 * s->cap[j] : 256;
    audit_val *p = realloc(s->vals[j], cap * sizeof *p);
    if (!p) {
      s->nomem = 1;
      return;
    }
    s->vals[j] = p;
    s->cap[j] = cap;
  }
  s->vals[j][s->nv[j]++] = (audit_val){v, ci};
}

/* Each audited pair: its --rows line, and its metrics as toi_audit_run sums them up. */
static void slot_row(void *ctx, const toi_audit_row *row) {
  audit_slot *s = ctx;
  if (s->rows) write_row(s->rows, row);
  int k = 0;
  while (s->au.forms[k].f != row->f) k++;
  const toi_resp_audit *a = &row->a;
  const double v[TOI_AUDIT_METRICS] = {fabs(a->gap), fabs(a->ke_err), fabs(a->mom_err), fabs(a->angle), a->ulp_max};
  for (int m = 0; m < TOI_AUDIT_METRICS; m++) keep_val(s, k * TOI_AUDIT_METRICS + m, v[m], row->case_index);
}

static int audit_work(void *ctx, toi_stream_block *b) {
  audit_stream *r = ctx;
  audit_slot *s = &r->slots[b->slot];
  if (s->have) toi_audit_free(&s->au);
  s->have = 0;
  memset(s->nv, 0, (size_t)r->nf * TOI_AUDIT_METRICS * sizeof *s->nv);
  s->rows = r->args->rows ? b->out : NULL;
  s->nomem = 0;
  toi_caselist list = {(toi_case *)b->cases, b->n, b->n};
  /* toi_audit_run_prec fills s->au before the first row: slot_row reads its forms */
  toi_status st = toi_audit_run_prec(&s->au, &list, (const toi_formulation *const *)r->fs, r->nf, r->E,
                                     r->args->precision, slot_row, s, &cli_msg_stderr);
  s->have = st == TOI_OK;
  return st != TOI_OK || s->nomem;
}

/* The block's pairs of one formulation and metric, in case order, into the
   run's: NaN left out, the maximum's witness the last case reaching it. */
static int merge_vals(audit_stream *r, const audit_slot *s, int k, int m, const toi_case *cases) {
  int j = k * TOI_AUDIT_METRICS + m;
  toi_audit_stat *st = &r->acc.forms[k].stat[m];
  for (size_t i = 0; i < s->nv[j]; i++) {
    double v = s->vals[j][i].v;
    if (isnan(v)) continue;
    if (toi_qstream_add(&r->q[j], &v, 1)) return -1;
    if (st->n++ == 0 || v >= st->max) {
      st->max = v;
      snprintf(r->ids[k].max[m], sizeof r->ids[k].max[m], "%s", cases[s->vals[j][i].ci].id);
    }
  }
  return 0;
}

/* A block's figures added to the run's, as one audit of every case would count them. */
static int merge_audit(audit_stream *r, const audit_slot *s, const toi_case *cases) {
  const toi_audit *b = &s->au;
  r->acc.cases += b->cases;
  r->acc.rounded += b->rounded;
  r->acc.unrepresentable += b->unrepresentable;
  r->acc.contacts += b->contacts;
  for (int k = 0; k < r->nf; k++) {
    toi_audit_form *a = &r->acc.forms[k];
    const toi_audit_form *f = &b->forms[k];
    a->audited += f->audited;
    a->not_reported += f->not_reported;
    a->failed += f->failed;
    a->penetrations += f->penetrations;
    if (!a->nonfinite && f->nonfinite)
      snprintf(r->ids[k].first_nonfinite, sizeof r->ids[k].first_nonfinite, "%s", cases[f->first_nonfinite].id);
    a->nonfinite += f->nonfinite;
    if (!isnan(f->min_gap) && (isnan(a->min_gap) || f->min_gap < a->min_gap)) {
      a->min_gap = f->min_gap;
      snprintf(r->ids[k].min_gap, sizeof r->ids[k].min_gap, "%s", cases[f->min_gap_case].id);
    }
    for (int m = 0; m < TOI_AUDIT_METRICS; m++)
      if (merge_vals(r, s, k, m, cases)) return -1;
  }
  return 0;
}

/* In input order; the --rows file opened at the first block, so that invalid input never touches it. */
static int audit_commit(void *ctx, toi_stream_block *b) {
  audit_stream *r = ctx;
  if (b->work_rc) {
    if (r->slots[b->slot].nomem) cli_error("audit: out of memory");
    return 1;
  }
  if (merge_audit(r, &r->slots[b->slot], b->cases)) {
    cli_error("audit: cannot spill the metrics to a temporary file");
    return 1;
  }
  if (!r->args->rows) return 0;
  if (!r->rows_open) {
    if (cli_out_open(&r->rowsf, r->args->rows)) return 1;
    r->rows_open = 1;
    fprintf(r->rowsf.f, "# toibench-audit-rows v1, restitution %a", r->E);
    if (r->args->precision != TOI_BINARY64)
      fprintf(r->rowsf.f, ", precision %s", toi_precision_name(r->args->precision));
    fprintf(r->rowsf.f, "\n# id formulation class T gap ke_err mom_err angle ulp_max ulp_vA.x ulp_vA.y ulp_vA.z "
                        "ulp_vB.x ulp_vB.y ulp_vB.z\n");
  }
  if (fwrite(b->text, 1, b->len, r->rowsf.f) == b->len) return 0;
  cli_error("%s: write error", r->args->rows);
  return 1;
}

/* The quantiles of every metric, then the summary and the rows into place. */
static int audit_finish(audit_stream *r, int rc, const toi_stream_result *res) {
  if (rc == EXIT_OK && res->commit_rc) rc = EXIT_RUNTIME;
  for (int j = 0; rc == EXIT_OK && j < r->nf * TOI_AUDIT_METRICS; j++) {
    toi_audit_stat *st = &r->acc.forms[j / TOI_AUDIT_METRICS].stat[j % TOI_AUDIT_METRICS];
    if (st->n == 0) st->max = NAN;
    static const double qs[2] = {0.5, 0.99};
    double qv[2];
    int qrc = toi_qstream_quantiles(&r->q[j], qs, 2, qv);
    st->median = qv[0];
    st->p99 = qv[1];
    if (qrc) {
      cli_error("audit: cannot read back the metrics");
      rc = EXIT_RUNTIME;
    }
  }
  cli_out out;
  if (rc == EXIT_OK && cli_out_open(&out, r->args->out)) rc = EXIT_RUNTIME;
  if (rc == EXIT_OK) {
    print_summary(out.f, &r->acc, r->ids);
    if (r->rows_open && cli_out_commit(&r->rowsf)) {
      r->rows_open = 0;
      cli_out_abort(&out);
      rc = EXIT_RUNTIME;
    } else {
      r->rows_open = 0;
      if (cli_out_commit(&out)) rc = EXIT_RUNTIME;
    }
  }
  if (r->rows_open) cli_out_abort(&r->rowsf);
  return rc;
}

/* Allocations of the run: 0 or -1. */
static int audit_alloc(audit_stream *r, int ns) {
  size_t nj = (size_t)r->nf * TOI_AUDIT_METRICS;
  r->slots = calloc((size_t)ns, sizeof *r->slots);
  r->acc.forms = calloc((size_t)r->nf + 1, sizeof *r->acc.forms);
  r->ids = calloc((size_t)r->nf + 1, sizeof *r->ids);
  r->q = calloc(nj + 1, sizeof *r->q);
  if (!r->slots || !r->acc.forms || !r->ids || !r->q) return -1;
  r->acc.nforms = r->nf;
  for (int k = 0; k < r->nf; k++) {
    r->acc.forms[k].f = r->fs[k];
    r->acc.forms[k].min_gap = NAN;
  }
  for (int i = 0; i < ns; i++) {
    audit_slot *s = &r->slots[i];
    if (!(s->vals = calloc(nj + 1, sizeof *s->vals)) || !(s->nv = calloc(nj + 1, sizeof *s->nv)) ||
        !(s->cap = calloc(nj + 1, sizeof *s->cap)))
      return -1;
  }
  /* the values of every stream together in memory up to TOI_QSTREAM_MEM (8 MB), shared out */
  for (size_t j = 0; j < nj; j++)
    if (toi_qstream_init_mem(&r->q[j], TOI_QSTREAM_MEM / (nj ? nj : 1))) return -1;
  return 0;
}

static void audit_release(audit_stream *r, int ns) {
  for (int i = 0; r->slots && i < ns; i++) {
    audit_slot *s = &r->slots[i];
    if (s->have) toi_audit_free(&s->au);
    for (int j = 0; s->vals && j < r->nf * TOI_AUDIT_METRICS; j++) free(s->vals[j]);
    free(s->vals);
    free(s->nv);
    free(s->cap);
  }
  for (int j = 0; r->q && j < r->nf * TOI_AUDIT_METRICS; j++) toi_qstream_free(&r->q[j]);
  free(r->slots);
  free(r->acc.forms);
  free(r->ids);
  free(r->q);
}

int cmd_audit(int argc, char **argv) {
  audit_stream r;
  memset(&r, 0, sizeof r);
  r.E = 1;
  cli_args args;
  int jobs = cli_default_jobs();
  int rc = audit_options(argc, argv, &args, &r.E, &r.fs, &r.nf, &jobs);
  if (rc != EXIT_OK) return rc;
  const cli_file outs[] = {{"-o", args.out ? args.out : "-"}, {"--rows", args.rows}};
  if ((rc = cli_outputs_check_args("audit", outs, 2, args.files, args.nfiles, 0, NULL, NULL, 0)) != EXIT_OK) {
    cli_args_free(&args);
    free(r.fs);
    return rc;
  }
  r.args = &args;
  r.acc.restitution = r.E;
  r.acc.precision = args.precision;
  /* Small blocks: a case costs from microseconds to milliseconds (MPFR), and
     the threads wait for the slowest block of each round. */
  toi_stream_opts so = {jobs, 512, audit_work, audit_commit, NULL, &r, NULL, 0};
  int ns = toi_stream_slots(&so);
  if (audit_alloc(&r, ns)) {
    cli_error("audit: out of memory or no temporary file for the metrics");
    rc = EXIT_RUNTIME;
  } else {
    toi_stream_result res;
    rc = audit_finish(&r, cli_stream_cases(&so, args.nfiles, args.files, &res), &res);
  }
  audit_release(&r, ns);
  cli_args_free(&args);
  free(r.fs);
  return rc;
}
