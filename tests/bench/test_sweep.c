/* test_sweep.c: sweeps, shards and merge end to end; the result format; hunt's determinism. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gen.h"
#include "replay.h"
#include "toi.h"
#include "toiref.h"
#include "cli_check.h"
#include "tmp_dir.h"
#include "ref_forms.h"
#include "msg_text.h"

/* ---- end to end ---- */

Test(sweep, identical_for_any_thread_count, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("sweep mixed --count 3000 -j1 -o r1"), 0);
  cr_assert_eq(td_tb("sweep mixed --count 3000 -j2 -o r2"), 0);
  cr_assert_eq(td_tb("sweep mixed --count 3000 -j3 > r3"), 0);
  cr_assert_eq(td_tb("sweep mixed --count 3000 -j2 --stats -o r4"), 0);
  cr_assert(td_same_file(td_path("r1"), td_path("r4")));
  char *st = cc_slurp(td_path("err"), NULL);
  cr_assert_not_null(strstr(st, "cases/s; peak RSS "), "--stats line: %s", st);
  free(st);
  cr_assert_eq(td_tb("sweep mixed --count 3000 -j2 -o r4"), 0);
  cr_assert(td_same_file(td_path("r1"), td_path("r2")), "-j1 and -j2 differ");
  cr_assert(td_same_file(td_path("r1"), td_path("r3")), "-j1 and -j3 differ");
  size_t n;
  char *err = cc_slurp(td_path("err"), &n);
  cr_assert_eq(n, 0, "no progress line when stderr is not a terminal: %s", err);
  free(err);
}

Test(sweep, shards_merge_into_the_whole, .init = td_setup, .fini = td_teardown) {
  const char *fam = "grazing --k 1:40 --dim 3 --count 2501";
  char a[256];
  snprintf(a, sizeof a, "sweep %s -j2 -o whole", fam);
  cr_assert_eq(td_tb(a), 0);
  for (int i = 1; i <= 3; i++) {
    snprintf(a, sizeof a, "sweep %s -j%d --shard %d/3 -o s%d", fam, i % 2 + 1, i, i);
    cr_assert_eq(td_tb(a), 0);
  }
  cr_assert_eq(td_tb("merge s2 s3 s1 -o m"), 0);
  cr_assert(td_same_file(td_path("whole"), td_path("m")), "merge of the shards differs from the whole sweep");
  /* Merging is associative: a partial merge merged again gives the same. */
  cr_assert_eq(td_tb("merge s1 s2 -o m12"), 3, "two of three shards are not the whole sweep");
  cr_assert(!td_exists(td_path("m12")));
  cr_assert_eq(td_tb("merge --partial s1 s2 -o m12"), 0);
  cr_assert_eq(td_tb("merge m12 s3 -o m123"), 0);
  cr_assert(td_same_file(td_path("whole"), td_path("m123")));
  /* More shards than chunks, some empty. */
  cr_assert_eq(td_tb("sweep tangent --count 5 -o t"), 0);
  char list[512] = "merge -o tm";
  for (int i = 1; i <= 7; i++) {
    snprintf(a, sizeof a, "sweep tangent --count 5 --shard %d/7 -o t%d", i, i);
    cr_assert_eq(td_tb(a), 0);
    snprintf(list + strlen(list), sizeof list - strlen(list), " t%d", i);
  }
  cr_assert_eq(td_tb(list), 0);
  cr_assert(td_same_file(td_path("t"), td_path("tm")));
}

static int err_has(const char *needle) {
  char *e = cc_slurp(td_path("err"), NULL);
  int ok = strstr(e, needle) != NULL;
  if (!ok) cr_log_error("stderr: %s", e);
  free(e);
  return ok;
}

Test(sweep, merge_rejects_mismatched_inputs, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("sweep grazing --count 300 --shard 1/2 -o a1"), 0);
  cr_assert_eq(td_tb("sweep grazing --count 300 --shard 2/2 -o a2"), 0);
  cr_assert_eq(td_tb("sweep grazing --count 300 --seed 2 --shard 2/2 -o seed2"), 0);
  cr_assert_eq(td_tb("sweep grazing --count 300 -f expanded --shard 2/2 -o fexp"), 0);
  cr_assert_eq(td_tb("sweep grazing --count 301 --shard 2/2 -o n301"), 0);
  cr_assert_eq(td_tb("sweep grazing --count 300 --shard 2/3 -o mid"), 0);

  cr_assert_eq(td_tb("merge a1 seed2 -o out"), 3);
  cr_assert(err_has("different generator options"));
  cr_assert_eq(td_tb("merge a1 fexp -o out"), 3);
  cr_assert(err_has("different formulations"));
  cr_assert_eq(td_tb("merge a1 n301 -o out"), 3);
  cr_assert(err_has("different sizes"));
  cr_assert_eq(td_tb("merge a1 a1 -o out"), 3);
  cr_assert(err_has("overlap"));
  cr_assert_eq(td_tb("merge a1 mid -o out"), 3);
  cr_assert(err_has("overlap"));
  cr_assert_eq(td_tb("sweep grazing --count 300 --shard 1/3 -o first3"), 0);
  cr_assert_eq(td_tb("merge first3 a2 -o out"), 3);
  cr_assert(err_has("missing"));

  /* Not a result, truncated, corrupted: file:line in the message. */
  FILE *f = fopen(td_path("bogus"), "w");
  fprintf(f, "hello\n");
  fclose(f);
  cr_assert_eq(td_tb("merge bogus a2 -o out"), 3);
  cr_assert(err_has("bogus:1:"));
  char cmd[512];
  snprintf(cmd, sizeof cmd, "head -5 '%s' >'%s'", td_path("a1"), td_path("trunc"));
  cr_assert_eq(cc_cmd(NULL, cmd), 0);
  cr_assert_eq(td_tb("merge trunc a2 -o out"), 3);
  cr_assert(err_has("trunc:"));
  snprintf(cmd, sizeof cmd, "sed 's/^hist \\(.*\\) \\([0-9]*\\)$/hist \\1 x\\2/' '%s' >'%s'", td_path("a1"),
           td_path("corrupt"));
  cr_assert_eq(cc_cmd(NULL, cmd), 0);
  cr_assert_eq(td_tb("merge corrupt a2 -o out"), 3);
  cr_assert(err_has("corrupt:"));
  cr_assert(err_has("not a count"));
  cr_assert(!td_exists(td_path("out")), "nothing written on error");
  cr_assert_eq(td_tb("merge a1 a2 -o out"), 0);
}

/* One of two shards is half a result: refused with the missing cases named,
   unless --partial says so; then the range line says which half it holds. */
Test(sweep, merge_of_missing_shards_needs_partial, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("sweep grazing --count 300 --shard 1/2 -o a1"), 0);
  cr_assert_eq(td_tb("sweep grazing --count 300 --shard 2/2 -o a2"), 0);
  cr_assert_eq(td_tb("merge a1 -o out"), 3);
  cr_assert(err_has("cases 150..299 of the sweep's 300 are in none of the inputs"));
  cr_assert(err_has("--partial"));
  cr_assert(!td_exists(td_path("out")), "nothing written");
  cr_assert_eq(td_tb("merge a2 -o out"), 3);
  cr_assert(err_has("cases 0..149 of the sweep's 300 are in none of the inputs"));
  cr_assert(!td_exists(td_path("out")), "nothing written");
  cr_assert_eq(td_tb("merge --partial a2 -o out"), 0);
  char *o = cc_slurp(td_path("out"), NULL);
  cr_assert_not_null(strstr(o, "\nrange 150 300\n"), "%s", o);
  free(o);
  cr_assert(td_same_file(td_path("a2"), td_path("out")), "a partial merge of one shard is that shard");
}

/* Field k (0-based) of a space-separated line, copied into buf. */
static const char *field(const char *line, int k, char *buf, size_t n) {
  const char *p = line;
  for (int i = 0; i < k; i++) {
    p = strchr(p, ' ');
    cr_assert_not_null(p);
    p++;
  }
  size_t l = strcspn(p, " \n");
  if (l >= n) l = n - 1;
  memcpy(buf, p, l);
  buf[l] = 0;
  return buf;
}

static unsigned long long ufield(const char *line, int k) {
  char b[64];
  return strtoull(field(line, k, b, sizeof b), NULL, 10);
}

Test(sweep, result_is_consistent_and_witnesses_replay, .init = td_setup, .fini = td_teardown) {
  /* 1200 grazing cases over k = 1..60: 20 per bin, each a hit or a miss. */
  cr_assert_eq(td_tb("sweep grazing --count 1200 -o r"), 0);
  char *text = cc_slurp(td_path("r"), NULL);
  cr_assert_eq(strncmp(text, "# toibench-sweep v1\n", 20), 0);
  size_t nf;
  const toi_formulation *forms = toi_formulations(&nf);
  int bins = 0, stats = 0, witnesses = 0;
  unsigned long long hist_sum[64][64] = {{0}}, timed[64][64] = {{0}};
  static int top_h[64][64];
  static double top_ulp[64][64];
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char b[64];
    if (!strncmp(line, "bin ", 4)) {
      bins++;
      cr_assert_eq(ufield(line, 5), 20, "%s", line);
      /* Classes: none overlap static contact separating miss graze hit. */
      cr_assert_eq(ufield(line, 11) + ufield(line, 13), 20, "only misses and hits: %s", line);
      cr_assert_eq(ufield(line, 12), 0);
    } else if (!strncmp(line, "stat ", 5)) {
      stats++;
      unsigned long long cases = ufield(line, 3), indom = ufield(line, 4), ood = ufield(line, 5);
      cr_assert_eq(cases, 20);
      cr_assert_eq(indom + ood, cases);
      cr_assert_eq(ufield(line, 6) + ufield(line, 7) + ufield(line, 8) + ufield(line, 9), indom, "%s", line);
      int j = -1;
      for (size_t k = 0; k < nf; k++)
        if (!strcmp(field(line, 1, b, sizeof b), forms[k].name)) j = (int)k;
      cr_assert_geq(j, 0);
      timed[j][ufield(line, 2)] = ufield(line, 10);
    } else if (!strncmp(line, "hist ", 5)) {
      int j = -1;
      for (size_t k = 0; k < nf; k++)
        if (!strcmp(field(line, 1, b, sizeof b), forms[k].name)) j = (int)k;
      hist_sum[j][ufield(line, 2)] += ufield(line, 6);
      /* Bin edges as documented: H 0 exact, 1 (0, 0.5), H: [2^(H-3), 2^(H-2)). */
      int h = (int)ufield(line, 3);
      double lo = strtod(field(line, 4, b, sizeof b), NULL), hi = strtod(field(line, 5, b, sizeof b), NULL);
      if (h == 1) cr_assert(lo == 0 && hi == 0.5);
      if (h >= 2 && h <= 65) cr_assert(lo == ldexp(1, h - 3) && hi == ldexp(1, h - 2), "%s", line);
      if (h > top_h[ufield(line, 2)][j]) top_h[ufield(line, 2)][j] = h;
    } else if (!strncmp(line, "witness ", 8)) {
      witnesses++;
      const toi_formulation *f = toi_formulation_find(field(line, 1, b, sizeof b));
      cr_assert_not_null(f);
      char what[32], vhex[64];
      field(line, 3, what, sizeof what);
      field(line, 7, vhex, sizeof vhex);
      unsigned long long index = ufield(line, 4);
      const char *cl = line;
      for (int k = 0; k < 9; k++) cl = strchr(cl, ' ') + 1;
      toi_case c;
      int fld;
      char msg[160];
      msg_text mt;
      toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
      cr_assert_eq(toi_parse_case_line(&c, cl, &fld, &m), TOI_OK, "%s", msg);
      /* The witness is case INDEX of the family, bit for bit. */
      toi_gen_opts o;
      toi_gen_opts_default(&o, TOI_GEN_GRAZING);
      toi_case g;
      size_t gb;
      cr_assert_eq(toi_gen_case(&g, NULL, &gb, &o, index), TOI_OK);
      cr_assert_str_eq(g.id, c.id);
      cr_assert_eq(memcmp(g.pa, c.pa, sizeof g.pa), 0);
      cr_assert_eq(memcmp(g.vb, c.vb, sizeof g.vb), 0);
      cr_assert_eq(gb, ufield(line, 2));
      toi_score_case rp;
      cr_assert_eq(replay_case(&rp, f, &c), 0);
      double value = strtod(vhex, NULL);
      if (!strcmp(what, "max_ulp")) {
        cr_assert_eq(rp.ulp, value, "%s replays to %a", line, rp.ulp);
        cr_assert_eq(rp.bits, strtod(field(line, 8, b, sizeof b), NULL));
        top_ulp[ufield(line, 2)][f - forms] = value;
      } else if (!strcmp(what, "max_ratio")) {
        /* |T - t*| / (kappa 2^-53 |t*| + 2^-1075), kappa from the reference,
           |T - t*| from the ULP error: ulp(t*) = 2^max(e-53, -1074) for
           2^(e-1) <= |t*| < 2^e. In long double, which holds 2^-1075 and
           the products here without underflow. */
        double kappa;
        cr_assert_eq(tr_kappa_engine(&kappa, &c, f->direction, TOI_REF_FAST), TOI_OK);
        cr_assert_eq(kappa, strtod(field(line, 8, b, sizeof b), NULL));
        int e;
        frexp(rp.ref_t, &e);
        long double err = (long double)rp.ulp * ldexpl(1, e - 53 < -1074 ? -1074 : e - 53);
        double want = (double)(err / ((long double)kappa * 0x1p-53L * fabsl((long double)rp.ref_t) + 0x1p-1075L));
        cr_assert(fabs(value - want) <= 1e-12 * want, "%s: ratio %a, expected %a", line, value, want);
      } else {
        cr_assert_str_eq(what, "misclass");
        cr_assert_eq(rp.kind, (int)value, "%s", line);
        cr_assert(rp.kind >= TOI_SCORE_MISSED && rp.kind <= TOI_SCORE_OTHER);
      }
    }
  }
  cr_assert_eq(bins, 60);
  cr_assert_eq(stats, 60 * (int)nf);
  cr_assert_gt(witnesses, 60);
  for (size_t j = 0; j < nf; j++)
    for (int b = 0; b < 60; b++) {
      cr_assert_eq(hist_sum[j][b], timed[j][b], "%s bin %d", forms[j].name, b);
      if (!timed[j][b]) continue;
      /* The largest error falls in the highest non-empty histogram bin. */
      double u = top_ulp[b][j];
      int h = top_h[b][j];
      if (h >= 2 && h <= 65) cr_assert(u >= ldexp(1, h - 3) && u < ldexp(1, h - 2), "%s bin %d", forms[j].name, b);
      if (h == 1) cr_assert(u > 0 && u < 0.5);
      if (h == 0) cr_assert(u == 0);
    }
  free(text);
  /* The replay recipe of doc/commands.md and of sweep --help, as written: one case
   * witnesses several statistics, and the file it makes must still be read. */
  const char *const unique[] = {"grep '^witness ' r", "cut -d' ' -f10-", "awk '!seen[$0]++' >worst.cases"};
  const char *const count[] = {"grep '^witness ' r", "cut -d' ' -f10-", "sort", "uniq", "wc -l >distinct"};
  cc_job job = {td_dir, 0, {0}};
  cr_assert_eq(cc_pipe(&job, 3, unique), 0);
  cr_assert_eq(cc_pipe(&job, 5, count), 0);
  cr_assert_eq(td_tb("run worst.cases -o runout"), 0, "the replay file is refused");
  char *distinct = cc_slurp(td_path("distinct"), NULL), *out = cc_slurp(td_path("runout"), NULL);
  char want[64];
  snprintf(want, sizeof want, "# toibench run: %ld cases", strtol(distinct, NULL, 10));
  cr_assert(strstr(out, want), "expected '%s' in: %.200s", want, out);
  cr_assert_gt(strtol(distinct, NULL, 10), 1);
  free(distinct);
  free(out);
}

Test(sweep, usage_errors, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("sweep --help > h"), 0);
  cr_assert_eq(td_tb("merge --help > h"), 0);
  cr_assert_eq(td_tb("hunt --help > h"), 0);
  cr_assert_eq(td_tb("sweep"), 2);
  cr_assert(err_has("Try 'toibench sweep --help'"));
  cr_assert_eq(td_tb("sweep mixed --shard 3/2"), 2);
  cr_assert_eq(td_tb("sweep mixed --shard x"), 2);
  cr_assert_eq(td_tb("sweep mixed -j 0"), 2);
  cr_assert_eq(td_tb("sweep mixed -f nosuch"), 2);
  cr_assert_eq(td_tb("sweep grazing --e 3"), 2);
  cr_assert_eq(td_tb("merge"), 2);
  cr_assert_eq(td_tb("merge missing-file"), 1); /* cannot be read: a runtime error, as for every command */
  cr_assert_eq(td_tb("hunt grazing"), 2);
  cr_assert_eq(td_tb("hunt -f nosuch"), 2);
  cr_assert_eq(td_tb("hunt -f expanded --keep 0"), 2);
}

Test(sweep, hunt_is_deterministic_and_says_lower_bound, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("hunt -f expanded grazing --k 20:40 --budget 800 --keep 4 -j1 -o h1 --quiet"), 0);
  cr_assert_eq(td_tb("hunt -f expanded grazing --k 20:40 --budget 800 --keep 4 -j2 -o h2"), 0);
  cr_assert(td_same_file(td_path("h1"), td_path("h2")), "hunt must not depend on -j");
  cr_assert(err_has("lower bound"));
  size_t n;
  char *text = cc_slurp(td_path("h1"), &n);
  cr_assert_not_null(strstr(text, "lower bounds"));
  toi_caselist list = {0};
  toi_diags diags = {0};
  cr_assert_eq(toi_parse_cases(&list, "h1", text, n, &diags), TOI_OK);
  cr_assert_geq(list.count, 1);
  /* The first case is the worst: at least as bad as any case of the global pass. */
  const toi_formulation *f = toi_formulation_find("expanded");
  toi_score_case sc;
  cr_assert_eq(replay_case(&sc, f, &list.items[0]), 0);
  const char *rec = strstr(text, "# ulp=");
  cr_assert_not_null(rec);
  char want[64];
  snprintf(want, sizeof want, "# ulp=%.6g ", sc.ulp);
  cr_assert_eq(strncmp(rec, want, strlen(want)), 0, "recorded %.30s, replayed %s", rec, want);
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_GRAZING);
  o.k = (toi_gen_range){20, 40, 1};
  for (uint64_t i = 0; i < 400; i++) {
    toi_case c;
    size_t b;
    toi_score_case s2;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, i), TOI_OK);
    cr_assert_eq(replay_case(&s2, f, &c), 0);
    if (s2.timed) cr_assert_geq(sc.ulp, s2.ulp, "case %llu beats the hunt", (unsigned long long)i);
  }
  /* The summary's largest ULP error is the largest of every case written,
   * whichever list kept it (replayed, not read back from the notes). */
  double top = 0;
  for (size_t k = 0; k < list.count; k++) {
    toi_score_case s3;
    cr_assert_eq(replay_case(&s3, f, &list.items[k]), 0);
    if (s3.timed && isfinite(s3.ulp) && s3.ulp > top) top = s3.ulp;
  }
  snprintf(want, sizeof want, "largest finite ULP error found %.6g ", top);
  cr_assert(err_has(want), "summary does not say '%s'", want);
  toi_caselist_free(&list);
  free(text);
}
