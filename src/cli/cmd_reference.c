/* cmd_reference.c: `toibench reference`, the certified class and roots of each case. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_outcheck.h"
#include "toiref.h"

static void help(void) {
  printf("Usage: toibench reference [--precision P] [--target-distance DELTA] [--reference ENGINE] [-o FILE]\n"
         "                          [-j N] FILE...\n"
         "Prints one line per case, in input order:\n"
         "  ID CLASS TLO THI\n"
         "CLASS is the exact class (overlap, static, contact, separating, miss, graze, hit),\n"
         "decided exactly with GMP; TLO <= THI are the roots of |s + v t| = R correctly\n"
         "rounded to the nearest double (C99 hex floats), or nan nan when there is no\n"
         "isolated root: no real root, or a static case (no relative motion) whose balls\n"
         "touch, where every t is a root. A negative root too small for the format's\n"
         "subnormals prints as -0x0p+0: the rounding keeps the sign of the exact root.\n"
         "An overlap's roots are printed (THI is when the balls separate) but no\n"
         "candidate is timed on it: its contact began before t = 0 and has no time.\n"
         "  --precision P            binary64 (default) or binary32: the roots correctly rounded\n"
         "                           to P from the exact roots (ties to even, P's subnormals,\n"
         "                           inf beyond its largest value), printed as the double\n"
         "                           holding that value; the class is the same exact class\n"
         "  --target-distance DELTA  solve |s + v t| = R + DELTA instead (engines that stop\n"
         "                           short of contact); R + DELTA must be >= 0\n"
         "  --reference ENGINE       fast (default: double-double with proven error bounds,\n"
         "                           MPFR only where they cannot decide) or mpfr (GMP and\n"
         "                           MPFR on every case); both print the same bits\n"
         "  -o FILE                  write to FILE (only when complete) instead of stdout\n"
         "  -j N                     threads (default: the number of online cores); the\n"
         "                           output is the same for any N\n"
         "FILE may be '-' for standard input. The files are read, solved and written a\n"
         "block at a time in memory that does not grow with them (apart from the IDs\n"
         "seen, kept to refuse a duplicate); stdout too gets nothing unless every line\n"
         "is valid.\n");
}

/* --precision NAME at argv[*i]: 1 taken (*q set), 0 not this option, -1 a usage error (printed). */
static int take_precision(toi_precision *q, int *given, int argc, char **argv, int *i) {
  if (strcmp(argv[*i], "--precision") != 0) return 0;
  const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  toi_precision p;
  if (toi_precision_parse(&p, v) != TOI_OK) {
    cli_usage_error("reference", "--precision must be binary64 or binary32, got '%s'", v ? v : "");
    return -1;
  }
  if (*given) {
    cli_usage_error("reference", "--precision given twice");
    return -1;
  }
  *q = p;
  *given = 1;
  (*i)++;
  return 1;
}

/* A block's scratch: the reference of each case, and the first failure. */
typedef struct ref_slot {
  toi_ref *refs;
  toi_status *sts;
  size_t cap;
  char *text; /* the block's lines, written with one call */
  size_t textcap;
  toi_status bad;
  char bad_id[TOI_ID_MAX + 1];
} ref_slot;

typedef struct ref_run {
  toi_precision prec;
  toi_ref_engine engine;
  double delta;
  int have_delta;
  ref_slot *slots;
  const char *outpath;
  cli_out out;
  int out_open;
  toi_status bad; /* the first failure in input order */
  char bad_id[TOI_ID_MAX + 1];
} ref_run;

/* One block: the reference of each case (through the batch without a
   target: several cases per vector instruction), a line each. */
static int ref_work(void *ctx, toi_stream_block *b) {
  ref_run *r = ctx;
  ref_slot *s = &r->slots[b->slot];
  if (b->n > s->cap) {
    free(s->refs);
    free(s->sts);
    s->refs = malloc(b->n * sizeof *s->refs);
    s->sts = malloc(b->n * sizeof *s->sts);
    s->cap = s->refs && s->sts ? b->n : 0;
    if (!s->cap) {
      s->bad = TOI_ERR_NOMEM;
      snprintf(s->bad_id, sizeof s->bad_id, "%s", b->cases[0].id);
      return 1;
    }
  }
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.engine = r->engine;
  rq.precision = r->prec;
  rq.with_target = r->have_delta;
  rq.target = r->delta;
  /* A refused call sets every status to TOI_ERR_RANGE, reported below. */
  toi_status bst = toi_ref_solve_batch(s->refs, s->sts, b->cases, b->n, &rq, NULL);
  (void)bst;
  /* an ID, a class name and two hex floats: at most TOI_ID_MAX + 128 bytes a line */
  size_t need = b->n * (TOI_ID_MAX + 128);
  if (need > s->textcap) {
    free(s->text);
    s->textcap = (s->text = malloc(need)) ? need : 0;
    if (!s->text) {
      s->bad = TOI_ERR_NOMEM;
      snprintf(s->bad_id, sizeof s->bad_id, "%s", b->cases[0].id);
      return 1;
    }
  }
  /* the class names and their lengths, found once a block; each name in 16
     bytes so that it is copied by one fixed-size move */
  size_t clen[TOI_CLASS_COUNT];
  char cname[TOI_CLASS_COUNT][16];
  for (int c = 0; c < TOI_CLASS_COUNT; c++) {
    const char *nm = toi_class_name((toi_class)c);
    clen[c] = strlen(nm);
    memset(cname[c], 0, sizeof cname[c]);
    memcpy(cname[c], nm, clen[c] < sizeof cname[c] ? clen[c] : sizeof cname[c]);
  }
  size_t at = 0;
  for (size_t k = 0; k < b->n; k++) {
    const toi_ref *ref = &s->refs[k];
    if (s->sts[k] != TOI_OK) {
      s->bad = s->sts[k];
      snprintf(s->bad_id, sizeof s->bad_id, "%s", b->cases[k].id);
      return 1;
    }
    /* ID CLASS TLO THI, built in place: no printf. The ID's whole array and
       a class name's 16 bytes are copied by fixed-size moves (a line has room
       for TOI_ID_MAX + 128 bytes), the bytes past them written over next. */
    char *line = s->text + at;
    size_t n = strlen(b->cases[k].id);
    memcpy(line, b->cases[k].id, sizeof b->cases[k].id);
    line[n++] = ' ';
    if ((unsigned)ref->cls < TOI_CLASS_COUNT && clen[ref->cls] <= 16) {
      memcpy(line + n, cname[ref->cls], 16);
      n += clen[ref->cls];
    } else {
      const char *cls = toi_class_name(ref->cls);
      size_t m = strlen(cls);
      memcpy(line + n, cls, m);
      n += m;
    }
    line[n++] = ' ';
    n += cli_fmt_hex(line + n, ref->tlo);
    line[n++] = ' ';
    n += cli_fmt_hex(line + n, ref->thi);
    line[n++] = '\n';
    at += n;
  }
  b->text = s->text; /* kept in the slot until commit */
  b->len = at;
  return 0;
}

/* In input order: the first failure stops the output; the output file is
   opened at the first block, so that invalid input never touches it. */
static int ref_commit(void *ctx, toi_stream_block *b) {
  ref_run *r = ctx;
  if (b->work_rc) {
    r->bad = r->slots[b->slot].bad;
    memcpy(r->bad_id, r->slots[b->slot].bad_id, sizeof r->bad_id);
    return 1;
  }
  if (!r->out_open) {
    if (cli_out_open_spooled(&r->out, r->outpath)) return -1;
    r->out_open = 1;
  }
  return fwrite(b->text, 1, b->len, r->out.f) == b->len ? 0 : -1;
}

/* The outcome once every file is read: the output committed, or removed. */
static int ref_finish(ref_run *r, int rc, const toi_stream_result *res) {
  if (rc == EXIT_OK && res->commit_rc > 0) {
    if (r->bad == TOI_ERR_RANGE) {
      cli_error("case %s: rA + rB + DELTA is negative: no contact distance; nothing was written", r->bad_id);
      rc = EXIT_INPUT;
    } else {
      cli_error("case %s: the reference failed (status %d)", r->bad_id, (int)r->bad);
      rc = EXIT_RUNTIME;
    }
  } else if (rc == EXIT_OK && res->commit_rc) {
    if (r->out_open) cli_error("%s: write error", r->outpath && strcmp(r->outpath, "-") ? r->outpath : "standard output");
    rc = EXIT_RUNTIME;
  }
  if (r->out_open && rc != EXIT_OK) cli_out_abort(&r->out);
  if (r->out_open && rc == EXIT_OK && cli_out_commit(&r->out)) rc = EXIT_RUNTIME;
  return rc;
}

int cmd_reference(int argc, char **argv) {
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  ref_run r;
  memset(&r, 0, sizeof r);
  r.prec = TOI_BINARY64;
  int have_prec = 0, jobs = cli_default_jobs();
  for (int i = 1; i < argc; i++) {
    int t = take_precision(&r.prec, &have_prec, argc, argv, &i);
    if (!t) t = cli_take_jobs("reference", argc, argv, &i, &jobs);
    if (t < 0) {
      cli_args_free(&args);
      return EXIT_USAGE;
    }
    if (t) continue;
    int rr = cli_args_take(&args, "reference", CLI_OPT_OUT | CLI_OPT_TARGET | CLI_OPT_REFERENCE, argc, argv, &i);
    if (rr != CLI_TAKEN) return cli_args_stop(&args, rr, help);
  }
  if (args.nfiles == 0) {
    cli_args_free(&args);
    return cli_usage_error("reference", "no case file given");
  }
  const cli_file outs[] = {{"-o", args.out ? args.out : "-"}};
  int checked = cli_outputs_check_args("reference", outs, 1, args.files, args.nfiles, 0, NULL, NULL, 0);
  if (checked != EXIT_OK) {
    cli_args_free(&args);
    return checked;
  }
  r.outpath = args.out;
  r.delta = args.delta;
  r.have_delta = args.have_delta;
  r.engine = args.engine;
  toi_stream_opts o = {jobs, 0, ref_work, ref_commit, NULL, &r, NULL, 1};
  int nslots = toi_stream_slots(&o), rc = EXIT_RUNTIME;
  r.slots = calloc((size_t)nslots, sizeof *r.slots);
  if (r.slots) {
    toi_stream_result res;
    rc = ref_finish(&r, cli_stream_cases(&o, args.nfiles, args.files, &res), &res);
  }
  for (int k = 0; r.slots && k < nslots; k++) {
    free(r.slots[k].refs);
    free(r.slots[k].sts);
    free(r.slots[k].text);
  }
  free(r.slots);
  cli_args_free(&args);
  return rc;
}
