/* registry.c: the table of built-in formulations behind toi_formulations(). */
#include <string.h>
#include "fpcore_kit.h"
#include "formulations.h"
#include "toi.h"

/* The source documents, cited by their label (the summaries say "Left open by
   001"), title, author or project, and public address where the document gives
   one: 000 names no author and no address; 001 no address (its author from the
   article as published); 002 names its author and its project's repository;
   003 its repository (its licence badge); 004 its author and the Collision Lab
   simulation, whose repository 002 gives. */
#define DOC_000 "000 \"Ball-Ball Collision Detection\" (no author or address given)"
#define DOC_001 "001 \"Colliding balls\", Gareth Rees, 2009"
#define DOC_002 \
  "002 \"How To Compute When Two Balls Will Collide\", Brandon Li, PhET Collision Lab, "                                 \
  "https://github.com/phetsims/collision-lab"
#define DOC_003 "003 \"Bouncing Balls\", EddyTodd, https://github.com/EddyTodd/BouncingBalls"
#define DOC_004 \
  "004 \"How To Find the Time of Impact (TOI) of two Balls\", Brandon Li, PhET Collision Lab, "                         \
  "https://github.com/phetsims/collision-lab"

/* One F(...) per formulation, in the order they are listed: solve function,
   its binary32 variant (the same source compiled with float, NAME/NAME32.c;
   accurate's is accurate/accurate32.c), name, direction, domain (0: every
   class), source, summary. The list declares the solve functions and their
   FPCore entries (toi_f_NAME_fpcore, NAME/NAME.fpcore.c) and fills both
   tables, so adding a formulation is its folder src/formulations/NAME/ plus
   one entry here (HACKING.md, "A new formulation"). Summaries name every guard, constant and quirk; 3D sums
   run over the third component too. The binary32 variants compute the same
   operations in real = float, with the decimal constants rounded to float.
   A formulation from a document then names, after OPEN(DOC), every choice
   the document leaves to us: constants it does not give, ties (== 0, t = 0),
   the extension to 3D, what stands for the document's step, evaluation
   order, readings of its typos, and (NOTHING) what is returned when the
   document returns nothing. */
#define OPEN(doc) "Left open by " doc ", ours: "
#define NOTHING "; no collision is the verdict none with a NaN time"
#define TOI_FORMULATION_LIST(F)                                                                                     \
  F(toi_f_expanded, toi_f_expanded32, "expanded", TOI_FORWARD, 0,                                                   \
    "textbook quadratic formula (no document; the expansion 000 and 002 derive)",                                   \
    "s=pB-pA, v=vB-vA, R=rA+rB; A=v.v, B=2s.v, C=s.s-R*R, disc=B*B-4AC; A==0 or disc<0 -> none; "                   \
    "t=(-B-sqrt(disc))/(2A), hit if t>=0 else none (no overlap test: overlaps give none)")                          \
  F(toi_f_expanded_corner, toi_f_expanded_corner32, "expanded-corner", TOI_FORWARD, 0,                              \
    DOC_003 ", BallCollision.calculateTime",                                                \
    "corners x=p-r first (x,y are top-left corners); rab=rA-rB, vab=vA-vB, xab=xA-xB, n=sum "                       \
    "vab^2, m=2(rab*sum vab+sum xab*vab), disc=m*m-4n(rab^2-4rA*rB+2rab*sum xab+sum xab^2); "                       \
    "disc<0 or disc==0 -> none; t=(-sqrt(disc)-m)/(2n), no guard for n==0; t<-1 dropped (time in "                  \
    "frames), so -1<=t<0 is a hit. " OPEN("003")                                                                    \
    "3D (003 is 2D): sums add z, rab^2 doubled (the 3D constant, our derivation); the frame is the "                \
    "case's time unit, the cut-off at -1 is the code's, with no upper bound but the bench's window "                \
    "(--tmax); disc==0 is none by 003's words (no energy transfer); '^ 2' as a product, sums left "                 \
    "to right as written; the corners in the formulation's precision" NOTHING)                                      \
  F(toi_f_inner_product, toi_f_inner_product32, "inner-product", TOI_FORWARD, 0,                                    \
    DOC_000,                                                                                                        \
    "p=<s,v>, q=<v,v>, ss=<s,s>; Delta=4p^2+4R^2q-4q*ss as written, Delta<=0 -> none (an exact "                    \
    "graze is missed); t=-p/q-sqrt(p^2/q^2+(R^2-ss)/q) (the last formula; a quotient of squares, as "               \
    "written), hit if t>0 (t_c 'positive': t=0 is none) else none; no guard for q==0 (NaN, none). "                 \
    OPEN("000") "000 is ambiguous: it tests Delta, then takes t from a radicand it calls a "                        \
    "simplification, equal to Delta/(4q^2) only in exact arithmetic; once rounded their signs can "                 \
    "differ: Delta decides, and a radicand <0 after Delta>0 gives a NaN time, none; Delta's products "              \
    "left to right, (4(R*R))q and (4q)ss, its sum left to right, ||v||^2 and ||s||^2 the same dot "                 \
    "products as <v,v>, <s,s>; a NaN Delta (overflow) is not <=0; 'the lower value' is the minus root; "            \
    "no step in 000: the bench's window (--tmax); 3D sums z" NOTHING)                                               \
  F(toi_f_ericson, toi_f_ericson32, "ericson", TOI_FORWARD, 0,                                                      \
    "Real-Time Collision Detection 5.5.5 TestMovingSphereSphere (Christer Ericson, 2005), cited by " DOC_001,                      \
    "c=s.s-r*r<0 -> overlap t=0; a=v.v<EPSILON -> none; b=v.s>=0 -> none; d=b*b-a*c<0 -> none; "                    \
    "t=(-b-sqrt(d))/a. " OPEN("the book")                                                                           \
    "EPSILON=1e-12 (1e-12f in binary32; the book's code is float), absolute on |v|^2, so relative "                 \
    "speeds below 1e-6 are 'not moving' even when the balls meet; its 'initially overlapping: t=0' is "           \
    "the verdict overlap at 0; c==0 is no overlap (touching and approaching: a hit at 0; leaving: "                 \
    "none); d==0 a hit (graze); the book's caller bounds t by its step: here the bench's window "                   \
    "(--tmax); 2D sums x,y only" NOTHING)                                                                           \
  F(toi_f_minkowski, toi_f_minkowski32, "minkowski", TOI_FORWARD, 0,                                                \
    DOC_001 ", section 4",                                                                                          \
    "point p=pB moving by d=vB-vA vs circle q=pA, r=rA+rB in world coordinates: a=d.d, "                            \
    "b=2(d.p-d.q), c=p.p+q.q-2p.q-r^2; b*b<4ac -> none; t-,t+=(-b-+sqrt(b*b-4ac))/(2a); a collision "               \
    "when [t-,t+] meets the step: t->=0 -> hit at t-, else t+>=0 (p inside the circle) -> overlap at "              \
    "t=0, else none; no guard for a==0 (NaN roots: none). " OPEN("001")                                             \
    "the step [0,1] is the bench's window: unbounded, --tmax T scores a time after T as none; a start "             \
    "inside is a collision at 0, reported as the verdict overlap (like ericson), and so is p on the "               \
    "circle moving out (t+==0; exact class separating); b*b==4ac is a hit (graze); B is the point and "             \
    "A the circle; 2p.q as 2(p.q); an overflowed b*b can give t-=-inf, t+=+inf: overlap at 0; 3D as "              \
    "in 2D ('the maths is identical')" NOTHING)                                                                     \
  F(toi_f_phet, toi_f_phet32, "phet", TOI_FORWARD, 0,                                                               \
    DOC_002 ", CollisionEngine.detectBallToBallCollisions",                                 \
    "dot solveQuadraticRootsReal(|dv|^2, 2dv.dr, c), c=|dr|^2-R^2 set to 0 if |c|<1e-10; linear "                   \
    "root -c/b if a==0 or |b/a|>1e7 or |c/a|>1e7; smallest root, hit if finite, >=0 and "                           \
    "|dv.dr|>=1e-11 (else 'parallel': none); an overlap gives none from the quadratic (a root < 0) "                \
    "but a hit at -c/b > 0 from the linear root (slow separation). " OPEN("002")                                    \
    "002 derives the quadratic only: the guards, constants and Math.min are its code's; 002's "                     \
    "'(v_2 - v_2)' read as v2-v1; elapsedTime=0, velocityMultiplier=1; a root of 0 is a hit; 'within "             \
    "a given time-step' is the bench's window (--tmax); 3D adds z terms to the Vector2 code" NOTHING)               \
  F(toi_f_phet_reverse, toi_f_phet_reverse32, "phet-reverse", TOI_REVERSE, 0,                                       \
    DOC_002 ", CollisionEngine.detectBallToBallCollisions, sim reversed",                   \
    "phet with dv multiplied by -1 (the sim running backwards) and t=-root: the largest root "                      \
    "<=0 when both roots are <=0; same 1e-10 clamp, 1e-11 parallel test and 1e7 linear fallback. "                  \
    OPEN("002") "'reverse collisions' as the code runs them (velocityMultiplier=-1, the root times "                \
    "-1); a root of 0 is a contact; no window (--tmax bounds forward times only); 3D adds z terms"                  \
    NOTHING)                                                                                                        \
  F(toi_f_overlap_recovery, toi_f_overlap_recovery32, "overlap-recovery", TOI_REVERSE,                              \
    TOI_CLASS_BIT(TOI_OVERLAP),                                                                                     \
    DOC_004 ", CollisionEngine.getBallToBallCollisionOverlapTime",                          \
    "only if sqrt(|pA-pB|^2)<rA+rB (else none): first root >=0 of dot "                                             \
    "solveQuadraticRootsReal(|dv|^2, -2dr.dv, |dr|^2-R^2) (1e7 linear fallback), 0 if none; "                       \
    "verdict overlap, t=-root. " OPEN("004")                                                                        \
    "004's '(r_2 - time v_1) - (r_1 - time v_1)' read as v2-v1, as the code does; 'the positive value "             \
    "of the two roots' is the code's first root >=0 of (-b-sqrt)/2a, (-b+sqrt)/2a, and none is 0 (its "             \
    "'|| 0'); the elapsed time is returned as the reverse time -time; only overlapping balls are "                  \
    "scored (its domain); no window; 3D adds z terms" NOTHING)                                                      \
  F(toi_f_gsl_stable, toi_f_gsl_stable32, "gsl-stable", TOI_FORWARD, 0,                                             \
    "GSL gsl_poly_solve_quadratic (poly/solve_quadratic.c), not from the documents",                                \
    "decided like the reference in double: C<0 overlap t=0; A==0 static; B>=0 separating; "                           \
    "disc<0 miss; disc==0 graze t=-0.5*B/A; else q=-0.5(B+sgn(B)sqrt(disc)), hit t=min(q/A, "                       \
    "C/q)")                                                                                                         \
  F(toi_f_robust, toi_f_robust32, "robust", TOI_FORWARD, 0, "toibench's own kernel, not from the documents",        \
    "plain double; s, v, R scaled by powers of two outside [2^-200,2^200); reference order; "                       \
    "c=fma(-R,R,s.s), recomputed compensated (TwoSum, FMA TwoProd) when c<3R^2; D=a*R^2-|s x v|^2 "                 \
    "(Lagrange) with Kahan's FMA determinant per component; t=c/(sqrt(D)-b)")                                       \
  F(toi_f_accurate, toi_f_accurate32, "accurate", TOI_FORWARD, 0, "toibench's own kernel, not from the documents",  \
    "exact class: signs of c, b, D by a proven double-double filter, else Shewchuk expansions (big "                \
    "numbers for extreme ranges); t=c/(sqrt(D)-b) in double-double to 2^-62.4, so within 0.502 ulp")

#define DECLARE(fn, fn32, name, dir, domain, source, summary) \
  toi_result fn(const toi_case *c);                                                                                 \
  toi_result fn32(const toi_case *c);
TOI_FORMULATION_LIST(DECLARE)
#undef DECLARE

#define ENTRY(fn, fn32, name, dir, domain, source, summary) {name, source, summary, dir, fn, domain, fn32},
static const toi_formulation formulations[] = {TOI_FORMULATION_LIST(ENTRY)};
#undef ENTRY

#define DECLARE_FPCORE(fn, fn32, name, dir, domain, source, summary) extern const toi_fpcore_entry fn##_fpcore;
TOI_FORMULATION_LIST(DECLARE_FPCORE)
#undef DECLARE_FPCORE
#define FPCORE(fn, fn32, name, dir, domain, source, summary) &fn##_fpcore,
static const toi_fpcore_entry *const fpcores[] = {TOI_FORMULATION_LIST(FPCORE)};
#undef FPCORE

const toi_fpcore_entry *toi_formulation_fpcore(const toi_formulation *f) {
  if (!f || !f->name) return NULL;
  for (size_t i = 0; i < sizeof formulations / sizeof formulations[0]; i++)
    if (!strcmp(formulations[i].name, f->name)) return fpcores[i];
  return NULL;
}

const toi_formulation *toi_formulations(size_t *count) {
  if (count) *count = sizeof formulations / sizeof formulations[0];
  return formulations;
}

const toi_formulation *toi_formulation_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof formulations / sizeof formulations[0]; i++)
    if (!strcmp(formulations[i].name, name)) return &formulations[i];
  return NULL;
}

toi_batch_fn toi_formulation_batch(const toi_formulation *f) {
  if (f && f->solve == toi_f_accurate) return toi_accurate_batch;
  return NULL;
}

toi_solve_fn toi_formulation_solver(const toi_formulation *f, toi_precision q) {
  if (!f) return NULL;
  switch (q) {
  case TOI_BINARY64: return f->solve;
  case TOI_BINARY32: return f->solve32;
  default: return NULL; /* no variant in another precision */
  }
}
