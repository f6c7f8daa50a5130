/* cli_stream.c: case files streamed through a command's work: -j, diagnostics as every reader prints them, exit codes. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "sweep.h"

int cli_take_jobs(const char *cmd, int argc, char **argv, int *i, int *jobs) {
  const char *a = argv[*i];
  if (strncmp(a, "-j", 2) != 0) return 0;
  const char *v = a[2] ? a + 2 : *i + 1 < argc ? argv[*i + 1] : "";
  if (sweep_parse_jobs(v, jobs)) {
    cli_usage_error(cmd, "-j needs a number in 1..1024");
    return -1;
  }
  if (!a[2]) (*i)++;
  return 1;
}

int cli_default_jobs(void) {
  return sweep_default_jobs();
}

/* After each file, as cli_read_case_files: its diagnostics, and the exit
   status so far (an unreadable file outweighs invalid input). */
typedef struct stream_cli {
  toi_stream_opts inner;
  int rc;
} stream_cli;

static void file_done(void *ctx, const char *path, const toi_diags *dg, toi_status st) {
  stream_cli *s = ctx;
  cli_report_diags(path, dg);
  if (st == TOI_ERR_NOMEM) cli_error("out of memory reading %s", path);
  if (st == TOI_ERR_IO || st == TOI_ERR_NOMEM) s->rc = EXIT_RUNTIME;
  if (st == TOI_ERR_INPUT && s->rc == EXIT_OK) s->rc = EXIT_INPUT;
}

static int work(void *ctx, toi_stream_block *b) {
  const stream_cli *s = ctx;
  return s->inner.work(s->inner.ctx, b);
}

static int commit(void *ctx, toi_stream_block *b) {
  const stream_cli *s = ctx;
  return s->inner.commit ? s->inner.commit(s->inner.ctx, b) : b->work_rc;
}

int cli_stream_cases(const toi_stream_opts *o, int nfiles, char **files, toi_stream_result *res) {
  stream_cli s = {*o, EXIT_OK};
  toi_stream_opts w = *o;
  w.work = work;
  w.commit = commit;
  w.file_done = file_done;
  w.ctx = &s;
  if (toi_stream_files(res, &w, nfiles, files) && res->read != TOI_ERR_NOMEM) {
    cli_error("cannot start the threads");
    return EXIT_RUNTIME;
  }
  if (s.rc == EXIT_INPUT) fprintf(stderr, "toibench: invalid input: nothing was written\n");
  return s.rc;
}
