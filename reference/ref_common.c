/* ref_common.c: the checks and measures both engines share: the case check, the root of a direction, bits apart. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ref_common.h"

/* Every entry point checks a case the same way, whichever engine answers it,
 * so that both engines refuse the same inputs with the same status. */
toi_status ref_check_case(const toi_case *c) {
  if (!c || (c->dim != 2 && c->dim != 3)) return TOI_ERR_INPUT;
  for (int i = 0; i < 3; i++)
    if (!isfinite(c->pa[i]) || !isfinite(c->pb[i]) || !isfinite(c->va[i]) || !isfinite(c->vb[i]))
      return TOI_ERR_INPUT;
  if (c->dim == 2 && (c->pa[2] != 0 || c->pb[2] != 0 || c->va[2] != 0 || c->vb[2] != 0))
    return TOI_ERR_INPUT;
  if (!isfinite(c->ra) || !isfinite(c->rb) || c->ra < 0 || c->rb < 0) return TOI_ERR_INPUT;
  return TOI_OK;
}

int ref_dir_root(const toi_ref *r, toi_direction dir) {
  return dir == TOI_FORWARD ? r->fwd_is_lo : r->rev_is_lo;
}

/* Position of a double in the ordered set of doubles; +0 and -0 coincide. */
static int64_t ref_ord(double d) {
  int64_t i;
  memcpy(&i, &d, sizeof i);
  return i < 0 ? -(i & INT64_MAX) : i;
}

/* The distance can exceed INT64_MAX. */
double ref_bits_apart(double a, double b) {
  int64_t oa = ref_ord(a), ob = ref_ord(b);
  uint64_t dist = oa >= ob ? (uint64_t)oa - (uint64_t)ob : (uint64_t)ob - (uint64_t)oa;
  return log2(1.0 + (double)dist);
}
