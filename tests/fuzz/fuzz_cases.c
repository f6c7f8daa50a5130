/* fuzz_cases.c: libFuzzer harness for the case reader (toi_parse_cases), with a write/read round trip. */
#include <stdint.h>
#include "fuzz_support.h"
#include "toi.h"

static int same_case(const toi_case *a, const toi_case *b) {
  if (strcmp(a->id, b->id) || a->dim != b->dim) return 0;
  for (int k = 0; k < 3; k++)
    if (!fz_same_double(a->pa[k], b->pa[k]) || !fz_same_double(a->va[k], b->va[k]) ||
        !fz_same_double(a->pb[k], b->pb[k]) || !fz_same_double(a->vb[k], b->vb[k]))
      return 0;
  return fz_same_double(a->ra, b->ra) && fz_same_double(a->ma, b->ma) && fz_same_double(a->rb, b->rb) &&
         fz_same_double(a->mb, b->mb);
}

/* Every case read is written as a v1 line (hex floats) and read back: the
 * writer's output must be accepted and give the same bits. */
static void round_trip(const toi_case *c) {
  char line[2048];
  int n = toi_format_case(line, sizeof line, c);
  FZ_CHECK(n > 0 && (size_t)n < sizeof line);
  toi_case back;
  int field = 0;
  FZ_CHECK(toi_parse_case_line(&back, line, &field, NULL) == TOI_OK);
  FZ_CHECK(same_case(c, &back));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  toi_caselist list = {0};
  toi_diags dg = {0};
  toi_status st = toi_parse_cases(&list, "fuzz.cases", (const char *)data, size, &dg);
  FZ_CHECK(st == TOI_OK || st == TOI_ERR_INPUT);
  FZ_CHECK(st == TOI_OK ? dg.total == 0 && list.count > 0 : dg.total > 0 && list.count == 0);
  FZ_CHECK(dg.count <= TOI_DIAG_MAX && dg.count <= dg.total);
  char text[1024];
  for (size_t i = 0; i < dg.count; i++) toi_diag_format(&dg.items[i], text, sizeof text);
  for (size_t i = 0; i < list.count; i++) {
    FZ_CHECK(toi_id_valid(list.items[i].id));
    round_trip(&list.items[i]);
  }
  toi_caselist_free(&list);
  return 0;
}
