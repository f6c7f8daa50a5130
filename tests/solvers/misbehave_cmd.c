/* misbehave_cmd.c: a subprocess solver that breaks the protocol on purpose, case by case, for the solver tests. */
/*
 * Answers each case as it reads it (one flushed line per case), correctly,
 * except by the prefix of the case ID:
 *   crash-  raises SIGSEGV          hang-  sleeps forever
 *   bad-    a malformed answer      skip-  no answer
 *   dup-    two answers             nan-   'hit nan'
 *   declined- 'ID unsupported'      gaveup- 'ID failed'
 *   badtarget- the right answer with an infinite or NaN target or tolerance
 * Options: --noread (never reads stdin, sleeps), --exit N (exits with N after
 * answering), --stray (adds answers for unknown IDs, one of them binary), --stderr (talks on
 * stderr), --slow MS (sleeps MS milliseconds before each answer), --fork FILE (first starts a
 * child that sleeps for 300 s holding stdout, and writes its process ID to FILE), --setsid (that child
 * first leaves the process group and the session).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ball_toi.h"
#include "case_line.h"

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* A child sleeping with stdout open, its ID in path once it runs (in its own session when asked). */
static void leave_child(const char *path, int new_session) {
  int ready[2];
  if (pipe(ready)) return;
  pid_t pid = fork();
  if (pid == 0) {
    if (new_session) setsid();
    ssize_t w = write(ready[1], "x", 1);
    (void)w;
    sleep(300);
    _exit(0);
  }
  close(ready[1]);
  char x;
  ssize_t r = pid > 0 ? read(ready[0], &x, 1) : 0;
  (void)r;
  close(ready[0]);
  FILE *f = pid > 0 ? fopen(path, "a") : NULL;
  if (f) {
    fprintf(f, "%ld\n", (long)pid);
    fclose(f);
  }
}

int main(int argc, char **argv) {
  int noread = 0, code = 0, stray = 0, talk = 0;
  long slow = 0;
  const char *forkfile = NULL;
  int new_session = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--noread")) noread = 1;
    else if (!strcmp(argv[i], "--exit") && i + 1 < argc) code = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--stray")) stray = 1;
    else if (!strcmp(argv[i], "--stderr")) talk = 1;
    else if (!strcmp(argv[i], "--slow") && i + 1 < argc) slow = atol(argv[++i]);
    else if (!strcmp(argv[i], "--fork") && i + 1 < argc) forkfile = argv[++i];
    else if (!strcmp(argv[i], "--setsid")) new_session = 1;
  }
  if (forkfile) leave_child(forkfile, new_session);
  if (noread)
    for (;;) pause();
  if (talk) fprintf(stderr, "misbehave: starting\n");
  char line[4096];
  double tmax = INFINITY;
  int bad = 0, badtarget = 0;
  while (fgets(line, sizeof line, stdin)) {
    cl_case cs;
    if (!cl_parse(line, &tmax, &cs)) continue;
    const char *id = cs.id;
    double t;
    int cls = ball_toi(cs.pa, cs.va, cs.ra, cs.pb, cs.vb, cs.rb, tmax, &t);
    if (slow) {
      struct timespec ts = {slow / 1000, (slow % 1000) * 1000000};
      nanosleep(&ts, NULL);
    }
    if (starts(id, "crash-")) raise(SIGSEGV);
    if (starts(id, "hang-"))
      for (;;) pause();
    if (starts(id, "skip-")) continue;
    if (starts(id, "bad-")) {
      /* A different kind of garbage each time. */
      static const char *const forms[] = {"%s hit notanumber\n", "%s banana 1\n", "%s\n", "%s hit 1 2 3 4\n"};
      printf(forms[bad++ % 4], id);
    } else if (starts(id, "badtarget-")) {
      /* Another one each time: inf, nan and -inf targets, inf and nan tolerances. */
      static const char *const forms[] = {"%s %s %a inf\n", "%s %s %a nan\n", "%s %s %a -inf\n",
                                          "%s %s %a 0 inf\n", "%s %s %a 0 nan\n"};
      printf(forms[badtarget++ % 5], id, ball_class_names[cls], t);
    } else if (starts(id, "nan-")) {
      printf("%s hit nan\n", id);
    } else if (starts(id, "declined-")) {
      printf("%s unsupported\n", id);
    } else if (starts(id, "gaveup-")) {
      printf("%s failed\n", id);
    } else {
      if (starts(id, "dup-")) printf("%s %s %a\n", id, ball_class_names[cls], t);
      printf("%s %s %a\n", id, ball_class_names[cls], t);
    }
    fflush(stdout);
    if (talk) fprintf(stderr, "misbehave: answered %s\n", id);
  }
  if (stray) printf("no-such-case hit 0x1p+0\n&&& garbage line\n\001\377-id hit 0x1p+0\n");
  return code;
}
