/* cli_fmt.h: machine-readable output of the commands (run --format, hunt --format, compare): JSON and CSV pieces. */
#ifndef TOI_CLI_FMT_H
#define TOI_CLI_FMT_H

#include <stdint.h>
#include <stdio.h>
#include "toi.h"

/// The output formats of --format.
typedef enum cli_format { CLI_FMT_TABLE = 0, CLI_FMT_JSON, CLI_FMT_CSV } cli_format;

/// Parses --format's value ("table", "json", "csv") into *out: EXIT_OK, or
/// EXIT_USAGE after a usage error for cmd.
int cli_parse_format(const char *cmd, const char *v, cli_format *out);

/// A JSON string, escaped (quotes, backslashes, control characters).
void cli_json_str(FILE *f, const char *s);
/// A JSON number: the shortest %.15g..%.17g that round-trips, or null for NaN and infinities (the
/// writer's "_hex" field beside it tells them apart).
void cli_json_num(FILE *f, double x);
/// "KEY": NUMBER, "KEY_hex": "HEX" (C99 hex float, or nan, inf, -inf: exact).
void cli_json_num_hex(FILE *f, const char *key, double x);
/// A CSV field: quoted when it holds a comma, a quote or a line break.
void cli_csv_str(FILE *f, const char *s);
/// A CSV number: as cli_json_num, "inf"/"-inf", or empty for NaN (the table's '-').
void cli_csv_num(FILE *f, double x);

/// The FNV-1a 64-bit hash of a case list: IDs, dimensions and the bits of
/// every number, in order. Two runs with equal hashes scored the same cases.
uint64_t cli_cases_hash(const toi_case *cases, size_t n);
/// The same hash continued over more cases: cli_cases_hash(all) is
/// cli_cases_hash_more over the parts in order, from CLI_CASES_HASH_START.
#define CLI_CASES_HASH_START 0xcbf29ce484222325ULL
uint64_t cli_cases_hash_more(uint64_t h, const toi_case *cases, size_t n);

#endif
