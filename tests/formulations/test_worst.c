/* test_worst.c: replays the worst-case corpus src/formulations/NAME/worst.cases and checks each recorded error. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"
#include "toi.h"
#include "msg_text.h"

typedef struct form_param {
  int index;
} form_param;

ParameterizedTestParameters(worst, corpus_reproduces_recorded_errors) {
  static form_param p[64];
  size_t n;
  (void)toi_formulations(&n);
  if (n > 64) n = 64;
  for (size_t i = 0; i < n; i++) p[i].index = (int)i;
  return cr_make_param_array(form_param, p, n);
}

ParameterizedTest(form_param *p, worst, corpus_reproduces_recorded_errors) {
  size_t n;
  const toi_formulation *f = &toi_formulations(&n)[p->index];
  char path[4096], folder[128];
  snprintf(folder, sizeof folder, "%s", f->name); /* its folder: the name with '_' for '-' */
  for (char *c = folder; *c; c++)
    if (*c == '-') *c = '_';
  snprintf(path, sizeof path, "%s/src/formulations/%s/worst.cases", TOI_SOURCE_DIR, folder);
  FILE *in = fopen(path, "r");
  cr_assert_not_null(in, "%s: every built-in formulation needs a worst-case corpus", path);
  char line[2048], rec[2048] = "", header[2048] = "";
  long lineno = 0;
  int cases = 0, timed = 0;
  while (fgets(line, sizeof line, in)) {
    lineno++;
    line[strcspn(line, "\r\n")] = 0;
    if (lineno == 1) snprintf(header, sizeof header, "%s", line);
    if (!strncmp(line, "# ulp=", 6)) {
      snprintf(rec, sizeof rec, "%s", line);
      continue;
    }
    if (line[0] == '#' || line[strspn(line, " \t")] == 0) continue;
    cr_assert_neq(rec[0], 0, "%s:%ld: a case without its '# ulp=' line", path, lineno);
    toi_case c;
    int field;
    char msg[160];
    msg_text mt;
    toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
    cr_assert_eq(toi_parse_case_line(&c, line, &field, &m), TOI_OK, "%s:%ld: %s", path, lineno, msg);
    toi_score_case r;
    cr_assert_eq(replay_case(&r, f, &c), 0, "%s:%ld: reference failed", path, lineno);
    /* The error is compared as printed (%.6g), which is how it was recorded. */
    char now[2048];
    snprintf(now, sizeof now, "# ulp=%.6g bits=%.6g class=%s verdict=%s kind=%s", r.ulp, r.bits,
             toi_class_name(r.ref_cls), toi_class_name(r.verdict), rp_kind_names[r.kind]);
    cr_expect_str_eq(now, rec, "%s:%ld (%s): recorded and replayed errors differ", path, lineno, c.id);
    cases++;
    timed += r.timed;
    rec[0] = 0;
  }
  fclose(in);
  char want[128];
  snprintf(want, sizeof want, "# toibench hunt -f %s ", f->name);
  cr_assert_eq(strncmp(header, want, strlen(want)), 0, "%s: made by '%s...'", path, want);
  cr_assert_gt(cases, 0, "%s: empty corpus", path);
  cr_assert_gt(timed, 0, "%s: no case with a scored time", path);
}
