/* test_fpcore.c: the FPCore export parses, binds every variable and evaluates to each formulation's own answer. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fpcore.h"
#include "gen.h"
#include "toi.h"
#include "cli_check.h"
#include "test_env.h"

/* ---- a small s-expression reader for the FPCore subset we write ---- */

typedef enum { SX_LIST, SX_SYM, SX_NUM, SX_STR } sx_kind;

typedef struct sx {
  sx_kind kind;
  char *text;      /* symbol, number or string (unescaped) */
  struct sx **kids; /* list */
  int n;
} sx;

static void sx_free(sx *e) {
  if (!e) return;
  for (int i = 0; i < e->n; i++) sx_free(e->kids[i]);
  free(e->kids);
  free(e->text);
  free(e);
}

static void skip_space(const char **p) {
  for (;;) {
    while (isspace((unsigned char)**p)) (*p)++;
    if (**p != ';') return;
    while (**p && **p != '\n') (*p)++;
  }
}

/* FPCore's decnum: [-+]?([0-9]+(\.[0-9]+)?|\.[0-9]+)(e[-+]?[0-9]+)? */
static int is_decnum(const char *s) {
  if (*s == '+' || *s == '-') s++;
  int digits = 0;
  while (isdigit((unsigned char)*s)) s++, digits++;
  if (*s == '.') {
    s++;
    int frac = 0;
    while (isdigit((unsigned char)*s)) s++, frac++;
    if (!frac) return 0;
    digits += frac;
  }
  if (!digits) return 0;
  if (*s == 'e') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
  }
  return *s == 0;
}

/* One expression at *p; NULL on a syntax error (unbalanced, bad token). */
static sx *sx_read(const char **p) {
  skip_space(p);
  sx *e = calloc(1, sizeof *e);
  cr_assert_not_null(e);
  if (**p == '(') {
    (*p)++;
    e->kind = SX_LIST;
    for (;;) {
      skip_space(p);
      if (**p == ')') break;
      if (!**p) return sx_free(e), NULL;
      sx *k = sx_read(p);
      if (!k) return sx_free(e), NULL;
      e->kids = realloc(e->kids, (size_t)(e->n + 1) * sizeof *e->kids);
      e->kids[e->n++] = k;
    }
    (*p)++;
    return e;
  }
  size_t cap = strlen(*p) + 1, len = 0;
  e->text = malloc(cap);
  if (**p == '"') {
    e->kind = SX_STR;
    for ((*p)++; **p != '"'; (*p)++) {
      if (!**p) return sx_free(e), NULL;
      if (**p == '\\') (*p)++;
      e->text[len++] = **p;
    }
    (*p)++;
    e->text[len] = 0;
    return e;
  }
  while (**p && !isspace((unsigned char)**p) && **p != '(' && **p != ')' && **p != ';' && **p != '"')
    e->text[len++] = *(*p)++;
  e->text[len] = 0;
  if (!len || **p == '"') return sx_free(e), NULL;
  e->kind = isdigit((unsigned char)e->text[0]) || ((e->text[0] == '-' || e->text[0] == '+' || e->text[0] == '.') &&
                                                   (isdigit((unsigned char)e->text[1]) || e->text[1] == '.'))
                ? SX_NUM
                : SX_SYM;
  if (e->kind == SX_NUM && !is_decnum(e->text)) return sx_free(e), NULL;
  return e;
}

static int is_sym(const sx *e, const char *s) { return e && e->kind == SX_SYM && !strcmp(e->text, s); }

/* ---- checking: known operators with their arity, every variable bound ---- */

typedef struct op_info {
  const char *name;
  int min, max; /* argument counts; max -1: any */
} op_info;

static const op_info ops[] = {
    {"+", 2, 2},        {"-", 1, 2},        {"*", 2, 2},       {"/", 2, 2},     {"sqrt", 1, 1},
    {"fabs", 1, 1},     {"fma", 3, 3},      {"<", 2, -1},      {"<=", 2, -1},   {">", 2, -1},
    {">=", 2, -1},      {"==", 2, -1},      {"!=", 2, -1},     {"and", 1, -1},  {"or", 1, -1},
    {"not", 1, 1},      {"isnan", 1, 1},    {"isfinite", 1, 1}, {"signbit", 1, 1}, {"if", 3, 3},
};

static const op_info *op_find(const char *name) {
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(ops[i].name, name)) return &ops[i];
  return NULL;
}

/* Names in scope: a stack of symbols (innermost last). */
typedef struct scope {
  const char *names[256];
  double vals[256];
  int n;
} scope;

static int scope_find(const scope *s, const char *name) {
  for (int i = s->n - 1; i >= 0; i--)
    if (!strcmp(s->names[i], name)) return i;
  return -1;
}

static int check_expr(const sx *e, scope *s, char *why, size_t whysz);

/* (let ((x e)...) body) or (let* ...): let's values see the outer scope only. */
static int check_let(const sx *e, scope *s, int star, char *why, size_t whysz) {
  if (e->n != 3 || e->kids[1]->kind != SX_LIST) return snprintf(why, whysz, "malformed let"), 0;
  int base = s->n;
  const sx *b = e->kids[1];
  for (int i = 0; i < b->n; i++) {
    const sx *one = b->kids[i];
    if (one->kind != SX_LIST || one->n != 2 || one->kids[0]->kind != SX_SYM)
      return snprintf(why, whysz, "malformed binding"), 0;
    int saved = s->n;
    if (!star) s->n = base;
    int ok = check_expr(one->kids[1], s, why, whysz);
    s->n = saved;
    if (!ok) return 0;
    cr_assert_lt(s->n, 256);
    s->names[s->n++] = one->kids[0]->text;
  }
  int ok = check_expr(e->kids[2], s, why, whysz);
  s->n = base;
  return ok;
}

static int check_expr(const sx *e, scope *s, char *why, size_t whysz) {
  if (e->kind == SX_NUM) return 1;
  if (e->kind == SX_STR) return snprintf(why, whysz, "a string in an expression"), 0;
  if (e->kind == SX_SYM) {
    if (is_sym(e, "INFINITY") || is_sym(e, "NAN") || scope_find(s, e->text) >= 0) return 1;
    return snprintf(why, whysz, "unbound variable '%s'", e->text), 0;
  }
  if (!e->n || e->kids[0]->kind != SX_SYM) return snprintf(why, whysz, "a list without an operator"), 0;
  const char *op = e->kids[0]->text;
  if (!strcmp(op, "let") || !strcmp(op, "let*")) return check_let(e, s, op[3] == '*', why, whysz);
  const op_info *o = op_find(op);
  if (!o) return snprintf(why, whysz, "unknown operator '%s'", op), 0;
  int argc = e->n - 1;
  if (argc < o->min || (o->max >= 0 && argc > o->max))
    return snprintf(why, whysz, "'%s' with %d arguments", op, argc), 0;
  for (int i = 1; i < e->n; i++)
    if (!check_expr(e->kids[i], s, why, whysz)) return 0;
  return 1;
}

/* The parts of one (FPCore (ARGS) PROPS... BODY). */
typedef struct core {
  sx *top;
  const sx *args, *body, *pre;
  const char *name, *description, *precision;
} core;

/* Checks the shape and every expression; fails the test otherwise. */
static void core_check(core *c, sx *top) {
  char why[200] = "";
  memset(c, 0, sizeof *c);
  c->top = top;
  cr_assert(top->kind == SX_LIST && top->n >= 3 && is_sym(top->kids[0], "FPCore"), "not an FPCore");
  c->args = top->kids[1];
  cr_assert_eq(c->args->kind, SX_LIST);
  scope s = {.n = 0};
  for (int i = 0; i < c->args->n; i++) {
    cr_assert_eq(c->args->kids[i]->kind, SX_SYM);
    s.names[s.n++] = c->args->kids[i]->text;
  }
  int i = 2;
  for (; i + 1 < top->n && top->kids[i]->kind == SX_SYM && top->kids[i]->text[0] == ':'; i += 2) {
    const char *prop = top->kids[i]->text;
    const sx *v = top->kids[i + 1];
    if (!strcmp(prop, ":name") || !strcmp(prop, ":description")) {
      cr_assert_eq(v->kind, SX_STR, "%s is not a string", prop);
      *(prop[1] == 'n' ? &c->name : &c->description) = v->text;
    } else if (!strcmp(prop, ":precision")) {
      cr_assert(is_sym(v, "binary64") || is_sym(v, "binary32"));
      c->precision = v->text;
    } else if (!strcmp(prop, ":pre")) {
      c->pre = v;
      cr_assert(check_expr(v, &s, why, sizeof why), ":pre: %s", why);
    }
  }
  cr_assert_eq(i, top->n - 1, "one body after the properties");
  c->body = top->kids[i];
  cr_assert(c->name && c->description && c->precision && c->pre);
  cr_assert(check_expr(c->body, &s, why, sizeof why), "%s: %s", c->name, why);
}

/* ---- the evaluator: doubles, each operation rounded to the precision ---- */

typedef struct evalctx {
  int f32; /* binary32: every result rounded to float (exact for + - * / sqrt of floats) */
  scope s;
} evalctx;

static double rnd(const evalctx *x, double v) { return x->f32 ? (double)(float)v : v; }

static double eval(const sx *e, evalctx *x);

static double eval_let(const sx *e, evalctx *x, int star) {
  int base = x->s.n;
  const sx *b = e->kids[1];
  double vals[64];
  cr_assert_leq(b->n, 64);
  for (int i = 0; i < b->n; i++) {
    vals[i] = eval(b->kids[i]->kids[1], x);
    if (star) {
      x->s.names[x->s.n] = b->kids[i]->kids[0]->text;
      x->s.vals[x->s.n++] = vals[i];
    }
  }
  for (int i = 0; !star && i < b->n; i++) {
    x->s.names[x->s.n] = b->kids[i]->kids[0]->text;
    x->s.vals[x->s.n++] = vals[i];
  }
  double v = eval(e->kids[2], x);
  x->s.n = base;
  return v;
}

/* Chained comparisons (<= a b c): every adjacent pair. */
static double eval_compare(const sx *e, evalctx *x, const char *op) {
  double prev = eval(e->kids[1], x);
  int ok = 1;
  for (int i = 2; i < e->n; i++) {
    double v = eval(e->kids[i], x);
    int r = !strcmp(op, "<") ? prev < v : !strcmp(op, "<=") ? prev <= v : !strcmp(op, ">") ? prev > v
            : !strcmp(op, ">=") ? prev >= v : !strcmp(op, "==") ? prev == v : prev != v;
    ok = ok && r;
    prev = v;
  }
  return ok;
}

static double eval_op(const sx *e, evalctx *x, const char *op) {
  if (!strcmp(op, "if")) return eval(e->kids[1], x) != 0 ? eval(e->kids[2], x) : eval(e->kids[3], x);
  if (!strcmp(op, "and") || !strcmp(op, "or")) {
    int all = 1, any = 0;
    for (int i = 1; i < e->n; i++) {
      int v = eval(e->kids[i], x) != 0;
      all = all && v;
      any = any || v;
    }
    return op[0] == 'a' ? all : any;
  }
  if (strchr("<>=!", op[0])) return eval_compare(e, x, op);
  double a = eval(e->kids[1], x);
  if (!strcmp(op, "not")) return !(a != 0);
  if (!strcmp(op, "isnan")) return isnan(a);
  if (!strcmp(op, "isfinite")) return isfinite(a);
  if (!strcmp(op, "signbit")) return signbit(a) != 0;
  if (!strcmp(op, "sqrt")) return rnd(x, sqrt(a));
  if (!strcmp(op, "fabs")) return fabs(a);
  if (!strcmp(op, "-") && e->n == 2) return -a;
  double b = eval(e->kids[2], x);
  switch (op[0]) {
  case '+': return rnd(x, a + b);
  case '-': return rnd(x, a - b);
  case '*': return rnd(x, a * b);
  case '/': return rnd(x, a / b);
  default: break;
  }
  cr_assert(!strcmp(op, "fma"));
  return rnd(x, x->f32 ? (double)fmaf((float)a, (float)b, (float)eval(e->kids[3], x)) : fma(a, b, eval(e->kids[3], x)));
}

static double eval(const sx *e, evalctx *x) {
  if (e->kind == SX_NUM) return x->f32 ? (double)strtof(e->text, NULL) : strtod(e->text, NULL);
  if (e->kind == SX_SYM) {
    if (is_sym(e, "INFINITY")) return INFINITY;
    if (is_sym(e, "NAN")) return NAN;
    int i = scope_find(&x->s, e->text);
    cr_assert_geq(i, 0);
    return x->s.vals[i];
  }
  const char *op = e->kids[0]->text;
  if (!strcmp(op, "let") || !strcmp(op, "let*")) return eval_let(e, x, op[3] == '*');
  return eval_op(e, x, op);
}

/* The value of an argument named like pax, vbz, ra in case c. */
static double case_arg(const toi_case *c, const char *name) {
  if (!strcmp(name, "ra")) return c->ra;
  if (!strcmp(name, "rb")) return c->rb;
  const double *v = name[0] == 'p' ? (name[1] == 'a' ? c->pa : c->pb) : (name[1] == 'a' ? c->va : c->vb);
  cr_assert(strchr("pv", name[0]) && strchr("ab", name[1]) && strchr("xyz", name[2]) && !name[3], "%s", name);
  return v[name[2] - 'x'];
}

static double core_eval(const core *k, const toi_case *c, int f32) {
  evalctx x = {f32, {.n = 0}};
  for (int i = 0; i < k->args->n; i++) {
    x.s.names[x.s.n] = k->args->kids[i]->text;
    x.s.vals[x.s.n++] = case_arg(c, k->args->kids[i]->text);
  }
  return eval(k->body, &x);
}

/* ---- the tests ---- */

static const char *const exported[] = {"expanded", "expanded-corner", "inner-product", "ericson",
                                       "minkowski", "phet",            "gsl-stable"};
#define NEXPORTED (sizeof exported / sizeof exported[0])

static sx *export_parse(const char *name, toi_precision q, int dim, toi_gen_family pre, core *k) {
  const toi_formulation *f = toi_formulation_find(name);
  cr_assert_not_null(f, "%s", name);
  toi_fpcore_opts o = {q, dim, pre};
  char *text;
  cr_assert_eq(toi_fpcore_format(&text, f, &o), TOI_OK, "%s", name);
  const char *p = text;
  sx *top = sx_read(&p);
  cr_assert_not_null(top, "%s: does not parse:\n%s", name, text);
  skip_space(&p);
  cr_assert_eq(*p, 0, "%s: text after the FPCore", name);
  free(text);
  core_check(k, top);
  cr_assert_str_eq(k->name, name);
  cr_assert_str_eq(k->precision, toi_precision_name(q));
  cr_assert_eq(k->args->n, 4 * dim + 2);
  cr_assert_not_null(strstr(k->description, f->source), "%s: the description cites the source", name);
  return top;
}

/* The formulation's own answer under the export's convention. */
static double own_answer(const toi_formulation *f, const toi_case *c, toi_precision q) {
  toi_result r = toi_formulation_solver(f, q)(c);
  int contact = r.cls == TOI_HIT || r.cls == TOI_GRAZE || r.cls == TOI_CONTACT || r.cls == TOI_OVERLAP;
  return contact ? r.t : INFINITY;
}

static int same(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return !memcmp(&a, &b, sizeof a);
}

/* Exact grazes, B from s = lam (3,4) + Rp (4,-3) along v = (-3,-4) (D = 0),
   where inner-product's Delta and its radicand round to different signs:
   Delta = 0 with the radicand 2^-53, then Delta = 2^-32 with the radicand 0. */
static const double graze_lam[2] = {0x1.90f0b6p-1, 0x1.b49fe5cp+4}, graze_rp[2] = {2.75, 2.0625};
#define EDGE_CASES 8

/* A few hand-made edge cases: no relative motion, exact touching, zero radii,
   a start inside the inflated circle (minkowski's overlap at 0), the grazes. */
static void edge_case(toi_case *c, int k, int dim) {
  memset(c, 0, sizeof *c);
  c->dim = dim;
  c->ma = c->mb = 1;
  c->ra = 1;
  c->rb = k == 2 ? 0 : 1;
  c->pb[0] = k == 1 ? 2 : k == 5 ? 1 : 5;
  c->va[0] = c->vb[0] = 0.5;
  if (k >= 3) c->vb[0] = -(double)k;
  if (k == 4) c->pb[1] = 2; /* grazing path */
  if (k >= 6) {
    const double lam = graze_lam[k - 6], rp = graze_rp[k - 6];
    c->ra = c->rb = 2.5 * rp;
    c->va[0] = 0;
    c->pb[0] = 3 * lam + 4 * rp;
    c->pb[1] = 4 * lam - 3 * rp;
    c->vb[0] = -3;
    c->vb[1] = -4;
  }
}

static void check_family(const char *name, const core *k, toi_precision q, int dim, toi_gen_family fam, long count) {
  const toi_formulation *f = toi_formulation_find(name);
  toi_gen_opts g;
  toi_gen_opts_default_in(&g, fam, q);
  g.dim = dim;
  g.seed = te_seed(0xfc0u + (uint64_t)fam);
  for (long i = 0; i < count + EDGE_CASES; i++) {
    toi_case c;
    size_t bin;
    if (i < count) {
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &g, (uint64_t)i), TOI_OK);
    } else {
      toi_case e;
      edge_case(&e, (int)(i - count), dim);
      cr_assert_geq(toi_case_round(&c, &e, q), 0); /* a binary32 variant reads floats */
    }
    double want = own_answer(f, &c, q), got = core_eval(k, &c, q == TOI_BINARY32);
    cr_assert(same(got, want), "%s %s %dD %s case %ld: FPCore %a, formulation %a", name, toi_precision_name(q), dim,
              toi_gen_family_name(fam), i, got, want);
  }
}

static void check_precision(toi_precision q) {
  long count = 500 * te_scale();
  for (size_t i = 0; i < NEXPORTED; i++)
    for (int dim = 2; dim <= 3; dim++) {
      core k;
      sx *top = export_parse(exported[i], q, dim, TOI_GEN_GENERIC, &k);
      check_family(exported[i], &k, q, dim, TOI_GEN_GENERIC, count);
      check_family(exported[i], &k, q, dim, TOI_GEN_AIMED, count);
      sx_free(top);
    }
}

Test(fpcore, binary64_evaluates_to_the_formulation) { check_precision(TOI_BINARY64); }

Test(fpcore, binary32_evaluates_to_the_formulation) { check_precision(TOI_BINARY32); }

/* :pre holds on the family's cases: aimed's bounding box contains them. */
Test(fpcore, pre_holds_on_the_family) {
  for (int fam = TOI_GEN_GENERIC; fam <= TOI_GEN_AIMED; fam++) {
    core k;
    sx *top = export_parse("expanded", TOI_BINARY64, 2, (toi_gen_family)fam, &k);
    toi_gen_opts g;
    toi_gen_opts_default(&g, (toi_gen_family)fam);
    g.dim = 2;
    for (uint64_t i = 0; i < 2000; i++) {
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &g, i), TOI_OK);
      evalctx x = {0, {.n = 0}};
      for (int j = 0; j < k.args->n; j++) {
        x.s.names[x.s.n] = k.args->kids[j]->text;
        x.s.vals[x.s.n++] = case_arg(&c, k.args->kids[j]->text);
      }
      cr_assert(eval(k.pre, &x) != 0, "%s case %llu outside :pre", toi_gen_family_name((toi_gen_family)fam),
                (unsigned long long)i);
    }
    sx_free(top);
  }
}

Test(fpcore, unexportable_say_why) {
  const char *const no[] = {"robust", "accurate", "phet-reverse", "overlap-recovery"};
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    const toi_formulation *f = toi_formulation_find(no[i]);
    cr_assert_not_null(f);
    cr_assert_not_null(toi_fpcore_unsupported(f), "%s", no[i]);
    char *text = (char *)1;
    toi_fpcore_opts o = {TOI_BINARY64, 2, TOI_GEN_GENERIC};
    cr_assert_eq(toi_fpcore_format(&text, f, &o), TOI_ERR_INPUT);
    cr_assert_null(text);
  }
  for (size_t i = 0; i < NEXPORTED; i++) cr_assert_null(toi_fpcore_unsupported(toi_formulation_find(exported[i])));
  toi_fpcore_opts bad = {TOI_BINARY64, 4, TOI_GEN_GENERIC};
  char *text;
  cr_assert_eq(toi_fpcore_format(&text, toi_formulation_find("expanded"), &bad), TOI_ERR_RANGE);
}

/* The command prints every formulation: FPCores that parse, and comments. */
Test(fpcore, command_prints_a_valid_file) {
  cc_out *r = cc_run(NULL, "fpcore --precision binary32 --dim 3 --pre aimed");
  cr_assert_eq(r->status, 0, "%s", r->err);
  const char *p = r->out;
  int n = 0;
  for (skip_space(&p); *p; skip_space(&p)) {
    sx *top = sx_read(&p);
    cr_assert_not_null(top, "does not parse near: %.80s", p);
    core k;
    core_check(&k, top);
    cr_assert_str_eq(k.precision, "binary32");
    sx_free(top);
    n++;
  }
  cr_assert_eq(n, (int)NEXPORTED);
  cr_assert_not_null(strstr(r->out, "; robust: not exported: "));
  r = cc_run(NULL, "fpcore robust");
  cr_assert_eq(r->status, 1);
  cr_assert_not_null(strstr(r->err, "robust is not exportable"));
  r = cc_run(NULL, "fpcore nosuch");
  cr_assert_eq(r->status, 2);
  r = cc_run(NULL, "fpcore --dim 4");
  cr_assert_eq(r->status, 2);
}
