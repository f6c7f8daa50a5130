/* fuzz_state.c: libFuzzer harness for the simulation state reader (sim_state_parse), with a write/read round trip. */
#include <stdint.h>
#include "fuzz_support.h"
#include "sim.h"

static int same_state(const sim_state *a, const sim_state *b) {
  if (a->dim != b->dim || a->n != b->n) return 0;
  for (int d = 0; d < 3; d++)
    if (!fz_same_double(a->box[d], b->box[d])) return 0;
  for (size_t i = 0; i < a->n; i++) {
    const sim_ball *x = &a->balls[i], *y = &b->balls[i];
    for (int d = 0; d < 3; d++)
      if (!fz_same_double(x->p[d], y->p[d]) || !fz_same_double(x->v[d], y->v[d])) return 0;
    if (!fz_same_double(x->r, y->r) || !fz_same_double(x->m, y->m)) return 0;
  }
  return 1;
}

/* A state read is written (hex floats) and read back: the writer's output
 * must be accepted and give the same bits. */
static void round_trip(const sim_state *s) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  FZ_CHECK(f != NULL);
  FZ_CHECK(sim_state_write(f, s) == 0);
  FZ_CHECK(fclose(f) == 0);
  sim_state back;
  toi_diags dg = {0};
  FZ_CHECK(sim_state_parse(&back, "written.state", text, len, &dg) == TOI_OK);
  FZ_CHECK(same_state(s, &back));
  sim_state_free(&back);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sim_state s;
  toi_diags dg = {0};
  toi_status st = sim_state_parse(&s, "fuzz.state", (const char *)data, size, &dg);
  FZ_CHECK(st == TOI_OK || st == TOI_ERR_INPUT);
  FZ_CHECK((st == TOI_OK) == (dg.total == 0));
  FZ_CHECK(dg.count <= TOI_DIAG_MAX && dg.count <= dg.total);
  char text[1024];
  for (size_t i = 0; i < dg.count; i++) toi_diag_format(&dg.items[i], text, sizeof text);
  if (st == TOI_OK) {
    FZ_CHECK(s.n > 0 && (s.dim == 2 || s.dim == 3));
    round_trip(&s);
    sim_state_free(&s);
  }
  return 0;
}
