/* test_mpi.c: toibench-mpi under mpirun gives the bytes of the one-process sweep and hunt; a rank that dies
 * stops the job with a message naming it. Skipped, saying so, when MPI is not installed (make test sets
 * TOIBENCH_MPI empty then). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli_check.h"

/* The toibench-mpi to test: $TOIBENCH_MPI (make test: empty without MPI), else the one beside toibench. */
static const char *mpi_bin(void) {
  static char path[4200];
  const char *e = getenv("TOIBENCH_MPI");
  if (e && !e[0]) cr_skip_test("MPI is not installed (no mpicc or mpirun): the toibench-mpi tests are skipped");
  if (e) snprintf(path, sizeof path, "%s", e);
  else snprintf(path, sizeof path, "%s-mpi", TOIBENCH_PATH);
  if (access(path, X_OK)) cr_skip_test("%s is not built ('make mpi'): the toibench-mpi tests are skipped", path);
  return path;
}

/* mpirun found in PATH, or the test is skipped. */
static const char *mpirun_path(void) {
  static char path[4200];
  const char *p = getenv("PATH");
  while (p && *p) {
    size_t n = strcspn(p, ":");
    snprintf(path, sizeof path, "%.*s/mpirun", (int)n, p);
    if (n && !access(path, X_OK)) return path;
    p += n + (p[n] == ':');
  }
  cr_skip_test("mpirun is not in PATH: the toibench-mpi tests are skipped");
  return NULL;
}

/* Runs `[ENV] mpirun -np K [--allow-run-as-root] --oversubscribe toibench-mpi ARGS` without a shell, stdout
 * and stderr into err (stderr kept, cut at n bytes). Returns the exit status (-1 on a signal). */
static int mpi_run(int k, const char *env, const char *args, char *err, size_t n) {
  static char words[8192], envw[256];
  char *argv[256], np[16], *envv[4];
  const char *mpirun = mpirun_path(), *bin = mpi_bin();
  int a = 0;
  snprintf(np, sizeof np, "%d", k);
  argv[a++] = (char *)mpirun;
  argv[a++] = "-np";
  argv[a++] = np;
  if (geteuid() == 0) argv[a++] = "--allow-run-as-root";
  argv[a++] = "--oversubscribe";
  argv[a++] = (char *)bin;
  cc_split(args, words, sizeof words, argv + a, 256 - a);
  int nenv = env ? cc_split(env, envw, sizeof envw, envv, 4) : 0;
  char path[] = "/tmp/toimpiXXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    for (int i = 0; i < nenv; i++) putenv(envv[i]);
    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || chdir(TOI_SOURCE_DIR)) _exit(126);
    dup2(in, 0), dup2(fd, 1), dup2(fd, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  close(fd);
  cc_read_into(path, err, n);
  unlink(path);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A folder for one test's files. */
static void tmp_folder(char *dir) {
  strcpy(dir, "/tmp/toimpidXXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

/* The one-process command `toibench CMD -o DIR/one` must succeed; then for 1, 2 and 3 ranks the same
 * command under mpirun must write the same bytes. */
static void same_bytes(const char *cmd) {
  mpi_bin();
  mpirun_path();
  char dir[32], line[2048], err[8192];
  tmp_folder(dir);
  snprintf(line, sizeof line, "%s -o %s/one", cmd, dir);
  cc_out *r = cc_run(NULL, line);
  cr_assert_eq(r->status, 0, "toibench %s: %s", line, r->err);
  size_t n1, nk;
  char path[64];
  snprintf(path, sizeof path, "%s/one", dir);
  char *one = cc_slurp(path, &n1);
  cr_assert_gt(n1, 100);
  for (int k = 1; k <= 3; k++) {
    snprintf(line, sizeof line, "%s -o %s/k%d", cmd, dir, k);
    int st = mpi_run(k, NULL, line, err, sizeof err);
    cr_assert_eq(st, 0, "mpirun -np %d toibench-mpi %s: status %d: %s", k, line, st, err);
    snprintf(path, sizeof path, "%s/k%d", dir, k);
    char *got = cc_slurp(path, &nk);
    cr_assert(nk == n1 && !memcmp(got, one, n1), "-np %d: %s differs from the one-process result", k, path);
    free(got);
  }
  free(one);
  cc_rmtree(dir);
}

Test(mpi, sweep_same_bytes_for_1_2_3_ranks, .timeout = 300) {
  same_bytes("sweep grazing --count 70000 -f robust,expanded,phet -j2 --quiet");
}

/* Units of 16384 cases: 40000 cases make three, so with 3 ranks each may take one, or one rank all. */
Test(mpi, sweep_solver_cmd_same_bytes, .timeout = 300) {
  char line[512];
  snprintf(line, sizeof line, "sweep near-contact --count 40000 -f robust --solver-cmd %s -j1 --quiet",
           cc_built("examples/solver_c"));
  same_bytes(line);
}

Test(mpi, sweep_shard_same_bytes, .timeout = 300) {
  same_bytes("sweep aimed --count 90000 --shard 2/3 -f accurate -j1 --quiet");
}

/* A rank that aborts stops the job: non-zero status, the rank named; the rerun with --resume (rank 0
 * wrote the checkpoint) gives the whole sweep's bytes. */
Test(mpi, dead_rank_named_and_resume, .timeout = 300) {
  mpi_bin();
  mpirun_path();
  char dir[32], line[1024], err[16384];
  tmp_folder(dir);
  const char *sweep = "sweep grazing --count 200000 -f robust -j1 --quiet";
  snprintf(line, sizeof line, "%s -o %s/one", sweep, dir);
  cc_out *r = cc_run(NULL, line);
  cr_assert_eq(r->status, 0, "%s", r->err);
  snprintf(line, sizeof line, "%s -o %s/res --checkpoint %s/ck --checkpoint-every 0.01", sweep, dir, dir);
  int st = mpi_run(2, "TOIBENCH_MPI_TEST_DIE=1:1", line, err, sizeof err);
  cr_assert_neq(st, 0, "a dead rank must fail the job: %s", err);
  cr_assert(strstr(err, "rank 1"), "the message must name rank 1: %s", err);
  char path[64];
  snprintf(path, sizeof path, "%s/res", dir);
  cr_assert_neq(access(path, F_OK), 0, "no result after a failure");
  snprintf(line, sizeof line, "%s -o %s/res --checkpoint %s/ck --resume", sweep, dir, dir);
  st = mpi_run(3, NULL, line, err, sizeof err);
  cr_assert_eq(st, 0, "%s", err);
  size_t n1, n2;
  char *got = cc_slurp(path, &n2);
  snprintf(path, sizeof path, "%s/one", dir);
  char *one = cc_slurp(path, &n1);
  cr_assert(n1 == n2 && !memcmp(one, got, n1), "the resumed result differs from the one-process result");
  free(one);
  free(got);
  cc_rmtree(dir);
}

/* A command other than sweep and hunt is refused with a usage error. */
Test(mpi, other_commands_refused, .timeout = 120) {
  char err[8192];
  int st = mpi_run(1, NULL, "run cases/ties.cases", err, sizeof err);
  cr_assert_eq(st, 2, "%s", err);
  cr_assert(strstr(err, "use toibench"), "%s", err);
}

Test(mpi, hunt_same_bytes_for_1_2_3_ranks, .timeout = 300) {
  same_bytes("hunt grazing -f robust --budget 30000 --keep 4 -j2 --quiet");
}

/* A binary32 variant: other moves (steps of nextafterf) and notes. */
Test(mpi, hunt_binary32_same_bytes, .timeout = 300) {
  same_bytes("hunt near-contact -f ericson --precision binary32 --budget 20000 --keep 3 -j1 --quiet");
}

/* An out-of-process solver: every rank starts its own; rounds of proposals, one call each. */
Test(mpi, hunt_solver_cmd_same_bytes, .timeout = 300) {
  char line[512];
  snprintf(line, sizeof line, "hunt near-contact --solver-cmd %s --budget 30000 --keep 4 -j1 --quiet",
           cc_built("examples/solver_c"));
  same_bytes(line);
}
