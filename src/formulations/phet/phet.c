/* phet.c: PhET Collision Lab's a-priori contact time (document 002), forward time. */
#include "formulations.h"

/* The real code's structure, constants included, lives in phet_detect.c. */
toi_result RNAME(toi_f_phet)(const toi_case *c) { return toi_phet_detect(c, REAL(1.0)); }
