/* cli_solver_log.c: --solver-log FILE, every line the solvers wrote, none left out (the terminal shows the first 20). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

static void log_emit(void *ud, const char *text) {
  cli_solver_log *l = ud;
  pthread_mutex_lock(&l->lock);
  if (fputs(text, l->out.f) == EOF || fputc('\n', l->out.f) == EOF) l->failed = 1;
  pthread_mutex_unlock(&l->lock);
}

int cli_solver_log_open(cli_solver_log *l, const char *path) {
  memset(l, 0, sizeof *l);
  if (!path) return 0;
  if (cli_out_open(&l->out, path)) return -1;
  pthread_mutex_init(&l->lock, NULL);
  l->open = 1;
  l->msg.emit = log_emit;
  l->msg.ud = l;
  return 0;
}

const toi_msg *cli_solver_log_sink(cli_solver_log *l) { return l->open ? &l->msg : NULL; }

int cli_solver_log_close(cli_solver_log *l) {
  if (!l->open) return 0;
  l->open = 0;
  pthread_mutex_destroy(&l->lock);
  if (l->failed || ferror(l->out.f)) {
    cli_error("--solver-log %s: write error", l->out.path);
    cli_out_abort(&l->out);
    return -1;
  }
  /* kept whether the run succeeded or not: it is what tells why it failed */
  return cli_out_commit(&l->out);
}
