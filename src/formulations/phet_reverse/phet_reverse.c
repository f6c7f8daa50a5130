/* phet_reverse.c: PhET Collision Lab's a-priori contact time (document 002), reverse time. */
#include "formulations.h"

/* When the sim runs backwards PhET multiplies the relative velocity by -1,
   finds the forward contact of that motion and multiplies the root by -1 again:
   the answer is a time <= 0, the largest root <= 0 of the original motion. */
toi_result RNAME(toi_f_phet_reverse)(const toi_case *c) { return toi_phet_detect(c, REAL(-1.0)); }
