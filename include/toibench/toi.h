/* toi.h: the toibench double-precision library: cases, classes and formulations. */
#ifndef TOI_H
#define TOI_H

#include <stddef.h>
#include <stdio.h>
#include "precision.h"
#include "toi_api.h"
#include "toi_msg.h"

/// Longest case ID, terminating NUL excluded.
#define TOI_ID_MAX 63
/// Longest case line read (characters, without the line end).
#define TOI_LINE_MAX (1 << 20)
/// Largest input file read (bytes): toi_read_file loads a whole file, so a
/// larger one (or an endless stream) is refused rather than exhausting memory.
#define TOI_INPUT_MAX ((size_t)1 << 30)

/// Exact class of a two-ball problem, or a formulation's verdict.
/// The order of the reference's decision is documented in toiref.h.
typedef enum toi_class {
  TOI_NONE = 0,      ///< formulation only: "no contact" without saying why
  TOI_OVERLAP,       ///< c < 0: the balls overlap at t = 0
  TOI_STATIC,        ///< a = 0: no relative motion
  TOI_CONTACT,       ///< c = 0 and b < 0: touching now and approaching
  TOI_SEPARATING,    ///< c = 0 and b >= 0, or c > 0 and b >= 0
  TOI_MISS,          ///< approaching but D < 0
  TOI_GRAZE,         ///< D = 0: one touching instant
  TOI_HIT,           ///< D > 0: a forward contact
  TOI_CLASS_COUNT
} toi_class;

/// Name of a class as printed and parsed ("none", "overlap", ...).
TOI_API const char *toi_class_name(toi_class c);
/// The class named name ("none", "overlap", ...) into *out: TOI_OK, or
/// TOI_ERR_RANGE for NULL or an unknown name (*out untouched). Thread-safe.
TOI_API TOI_MUST_USE toi_status toi_class_parse(toi_class *out, const char *name);

/// Verdict groups used to score a formulation against the exact class.
typedef enum toi_group {
  TOI_G_NOCONTACT = 0,  ///< none, miss, separating, static
  TOI_G_CONTACT,        ///< hit, graze, contact
  TOI_G_OVERLAP         ///< overlap
} toi_group;
TOI_API toi_group toi_class_group(toi_class c);

/// Why a case failed (TOI_FAILED), so that a failed run can say so by cause.
typedef enum toi_fail_cause {
  TOI_CAUSE_NONE = 0, ///< not failed
  TOI_CAUSE_PROTOCOL, ///< a malformed, repeated or missing answer, an unknown class or status
  TOI_CAUSE_CRASH,    ///< the solver's process died (a signal, an exit status, could not start or load)
  TOI_CAUSE_HANG,     ///< no answer within --timeout: the solver was stopped
  TOI_CAUSE_DECLARED, ///< the solver answered that it failed (its own failure state)
  TOI_CAUSE_RANGE,    ///< an answer outside the question: a contact with a negative or non-finite time
  TOI_CAUSE_COUNT
} toi_fail_cause;

/// The name of a cause: "protocol", "crash", "hang", "declared", "range" ("-" for none).
TOI_API const char *toi_fail_cause_name(toi_fail_cause c);

/// One two-ball case. In 2D the third components are zero.
typedef struct toi_case {
  char id[TOI_ID_MAX + 1]; ///< letters, digits and ._:-
  int dim;                 ///< 2 or 3
  double pa[3];            ///< centre of ball A at t = 0
  double va[3];            ///< velocity of ball A
  double ra;               ///< radius of A, >= 0
  double ma;               ///< mass of A, > 0
  double pb[3];            ///< centre of ball B at t = 0
  double vb[3];            ///< velocity of ball B
  double rb;               ///< radius of B, >= 0
  double mb;               ///< mass of B, > 0
} toi_case;

/// A formulation's answer: its own verdict and its time (NaN when none).
typedef struct toi_result {
  toi_class cls; ///< the formulation's verdict
  double t;      ///< contact time in the formulation's direction, or NaN
} toi_result;

/// Which root a formulation answers.
typedef enum toi_direction {
  TOI_FORWARD = 0, ///< the smallest root >= 0
  TOI_REVERSE = 1  ///< the largest root <= 0 (reverse time, overlap recovery)
} toi_direction;

typedef toi_result (*toi_solve_fn)(const toi_case *c);

/// A registered formulation.
typedef struct toi_formulation {
  const char *name;      ///< the name used with -f
  const char *source;    ///< the document it comes from
  const char *summary;   ///< one line: what it computes and its quirks
  toi_direction direction;
  toi_solve_fn solve;     ///< in binary64
  /// Exact classes the formulation claims to answer, as a mask of
  /// TOI_CLASS_BIT(cls); 0 means every class. Cases outside it are counted as
  /// out of domain and not scored (overlap-recovery answers only overlaps).
  unsigned domain;
  /// In binary32, compiled from the same source as solve: reads the case's
  /// numbers as floats (they must be binary32 values: toi_case_round),
  /// computes in float and returns its float time as a double.
  toi_solve_fn solve32;
} toi_formulation;
#define TOI_CLASS_BIT(cls) (1u << (unsigned)(cls))

/// The formulation's solve function in precision q: solve for binary64,
/// solve32 for binary32 (the case's numbers must then be values of q:
/// toi_case_round); NULL when it has none in q.
TOI_API toi_solve_fn toi_formulation_solver(const toi_formulation *f, toi_precision q);

/// The built-in formulations, in a stable order; *count receives their number.
TOI_API const toi_formulation *toi_formulations(size_t *count);
/// The formulation with this name, or NULL.
TOI_API const toi_formulation *toi_formulation_find(const char *name);

/* ---- case files (caseio.c) ---- */

/// One diagnostic about an input file.
typedef struct toi_diag {
  char file[256];
  long line;     ///< 1-based line number, 0 for the whole file
  int field;     ///< 1-based field number, 0 when not about a field
  char field_name[16];
  char message[160];
} toi_diag;

/// A growable list of cases read from files.
typedef struct toi_caselist {
  toi_case *items;
  size_t count, cap;
} toi_caselist;

/// Diagnostics collected while reading; at most TOI_DIAG_MAX are kept.
#define TOI_DIAG_MAX 20
typedef struct toi_diags {
  toi_diag items[TOI_DIAG_MAX];
  size_t count;  ///< number kept
  size_t total;  ///< number of problems found (may exceed count)
} toi_diags;

/// Reads a whole file (or "-" for stdin) into *text (malloc'ed, not
/// NUL-terminated, *len bytes). A missing file, a directory or a read error
/// is recorded in diags as "FILE: what" and gives TOI_ERR_IO. Reading stops at
/// once at a NUL byte, at a line longer than TOI_LINE_MAX or beyond
/// TOI_INPUT_MAX bytes, and a regular file larger than that is refused by its
/// size before it is read: TOI_ERR_INPUT, recorded in diags.
TOI_API TOI_MUST_USE toi_status toi_read_file(char **text, size_t *len, const char *path, toi_diags *diags);
/// Reads one case file (or "-" for stdin) and appends its cases to list.
/// On any bad line the whole file is refused: nothing is appended, diags
/// lists the problems and TOI_ERR_INPUT is returned.
TOI_API TOI_MUST_USE toi_status toi_read_cases(toi_caselist *list, const char *path, toi_diags *diags);
/// Parses one text buffer as if it were a file named name.
TOI_API TOI_MUST_USE toi_status toi_parse_cases(toi_caselist *list, const char *name, const char *text,
                                        size_t len, toi_diags *diags);
/// Parses one non-comment line into *c: TOI_OK (*field 0); TOI_ERR_INPUT with
/// the field at fault in *field (1-based, 0 for the line as a whole; field
/// may be NULL) and the reason said to msg; TOI_ERR_NOMEM; TOI_ERR_RANGE for a
/// NULL c or line.
TOI_API TOI_MUST_USE toi_status toi_parse_case_line(toi_case *c, const char *line, int *field, const toi_msg *msg);
TOI_API void toi_caselist_free(toi_caselist *list);
TOI_API TOI_MUST_USE toi_status toi_caselist_push(toi_caselist *list, const toi_case *c);
/// Formats a diagnostic as "FILE:LINE: field N (name): message".
TOI_API void toi_diag_format(const toi_diag *d, char *buf, size_t bufsz);
/// Formats one case as a v1 line without newline; returns the length that
/// the full line needs (like snprintf, whose convention it keeps: a length,
/// not a status).
TOI_API int toi_format_case(char *buf, size_t bufsz, const toi_case *c);
/// Writes one case as a v1 line (hex floats, round-trip exact) with a newline:
/// TOI_OK; TOI_ERR_IO when the stream refused it (errno says why; what was
/// buffered may fail only at fflush or fclose); TOI_ERR_RANGE for NULL
/// arguments or a case whose line does not fit 1024 bytes (an ID longer than
/// TOI_ID_MAX).
TOI_API TOI_MUST_USE toi_status toi_write_case(FILE *f, const toi_case *c);
/// Field name of field number n (1-based) for a case of dimension dim.
TOI_API const char *toi_field_name(int dim, int n);
/// True when id is a legal case ID.
TOI_API int toi_id_valid(const char *id);


/* ---- case files read a block at a time (caseio.c) ---- */

/// A case file read in blocks of lines, in memory bounded whatever its size:
/// the same checks and messages as toi_read_cases, and no TOI_INPUT_MAX
/// limit. Duplicate IDs are found exactly at the end of the file: for a
/// regular file, from the 64-bit hashes of its first 2^21 IDs kept in memory
/// (a hash seen twice: the file is read again to check its IDs exactly), the
/// later IDs and those of other inputs (stdin, pipes) in temporary files of
/// TMPDIR.
typedef struct toi_case_stream toi_case_stream;

/// A problem found in a block's line, named once the block is accepted.
typedef struct toi_line_error {
  long line;
  int field, dim;
  char message[160];
} toi_line_error;

/// The case lines of one block (blank and comment lines skipped), then their
/// cases once parsed. Reused from block to block; zero-initialise it first.
typedef struct toi_line_block {
  char *text;             ///< the lines, each NUL-terminated
  size_t len, cap;
  size_t *start;          ///< where line i starts in text
  long *line;             ///< its number in the file (from 1)
  size_t n, ncap;
  toi_case *cases;        ///< after toi_line_block_parse: case i when ok[i]
  unsigned char *ok;      ///< 1: a case
  toi_line_error errs[TOI_DIAG_MAX]; ///< the first bad lines of the block
  size_t nerrs, nbad;     ///< errors kept, bad lines in all
} toi_line_block;

/// Opens path ("-": standard input). A missing file or a directory is
/// recorded in diags as toi_read_file does (TOI_ERR_IO).
TOI_API TOI_MUST_USE toi_status toi_case_stream_open(toi_case_stream **s, const char *path, toi_diags *diags);
/// Reads the next lines into b (b->n = 0 at the end of the file): at most
/// max_lines case lines and about max_bytes bytes. A NUL byte or a line longer
/// than TOI_LINE_MAX ends the file at once (TOI_ERR_INPUT), so does a read
/// error (TOI_ERR_IO): toi_case_stream_close then reports that problem alone,
/// as toi_read_cases does. Touches s and b only (diags are not read).
TOI_API TOI_MUST_USE toi_status toi_case_stream_read(toi_case_stream *s, toi_line_block *b, size_t max_lines,
                                             size_t max_bytes);
/// Parses the lines of b into b->cases (any thread; touches b only).
TOI_API void toi_line_block_parse(toi_line_block *b);
/// In file order, after toi_line_block_parse: records the bad lines in diags
/// and keeps the IDs of the others. TOI_OK, or TOI_ERR_IO when the IDs cannot
/// be written to their temporary file.
TOI_API TOI_MUST_USE toi_status toi_case_stream_accept(toi_case_stream *s, toi_line_block *b, toi_diags *diags);
/// The file's name in messages ("<stdin>" for "-").
TOI_API const char *toi_case_stream_name(const toi_case_stream *s);
/// Ends the file: its reading problem, or its duplicate IDs (each naming the
/// first line of its ID, in line order among the bad lines), or "no cases"
/// when it held none, into diags. TOI_ERR_INPUT when diags got a problem of
/// this file, TOI_ERR_IO after a read error, TOI_ERR_NOMEM, else TOI_OK.
/// Frees s (NULL allowed).
TOI_API TOI_MUST_USE toi_status toi_case_stream_close(toi_case_stream *s, toi_diags *diags);
TOI_API void toi_line_block_free(toi_line_block *b);

#endif
