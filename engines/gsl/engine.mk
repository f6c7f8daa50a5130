# gsl: GSL's gsl_poly_solve_quadratic on the time-of-impact quadratic.
ENGINE_APT := libgsl-dev
ENGINE_PC := gsl
