/* mpi_main.c: toibench-mpi, `toibench sweep` and `toibench hunt` shared among the processes of an MPI job. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "hunt.h"
#include "sweep.h"

int cmd_sweep_dist(int argc, char **argv, const sweep_dist *dist);
int cmd_hunt_dist(int argc, char **argv, const sweep_dist *dist);

/* The MPI side of a sweep_dist: the communicator, the shared counter of
   units (a one-sided window at rank 0), and the test hook's countdown. */
typedef struct mpi_link {
  MPI_Comm comm;
  MPI_Win win;
  uint64_t *counter; /* the window's memory (rank 0's holds the count) */
  uint64_t base;     /* the counter's value when the current pass began */
  int rank, size;
  long die_after;    /* TOIBENCH_MPI_TEST_DIE: units this rank takes before it aborts (-1: never) */
  char host[64];
} mpi_link;

/* An MPI call that failed (the communicator returns errors instead of
   aborting): says which rank, on which host, and stops the whole job. */
static void check(const mpi_link *x, int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char why[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, why, &len);
  fprintf(stderr, "toibench-mpi: rank %d of %d (host %s): %s failed: %s; stopping every rank\n", x->rank, x->size,
          x->host, what, why);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
}

/* Test hook, documented in --help: TOIBENCH_MPI_TEST_DIE=R:N makes rank R
   abort (SIGABRT, as a crash would) when it asks for a unit after N units. */
static void test_die(mpi_link *x) {
  if (x->die_after < 0 || x->die_after-- > 0) return;
  fprintf(stderr, "toibench-mpi: rank %d (host %s): TOIBENCH_MPI_TEST_DIE: aborting on purpose (test hook)\n",
          x->rank, x->host);
  fflush(stderr);
  abort();
}

static uint64_t link_next(void *ud, uint64_t n) {
  mpi_link *x = ud;
  test_die(x);
  uint64_t one = 1, v = 0;
  check(x, MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, x->win), "MPI_Win_lock");
  check(x, MPI_Fetch_and_op(&one, &v, MPI_UINT64_T, 0, 0, MPI_SUM, x->win), "MPI_Fetch_and_op");
  check(x, MPI_Win_unlock(0, x->win), "MPI_Win_unlock");
  v -= x->base;
  if (v < n) return v;
  /* Every rank asks once more than it gets: after the barrier the counter
     stands at base + n + size, where the next pass begins. */
  check(x, MPI_Barrier(x->comm), "MPI_Barrier");
  x->base += n + (uint64_t)x->size;
  return n;
}

static uint64_t link_bcast(void *ud, uint64_t v) {
  mpi_link *x = ud;
  check(x, MPI_Bcast(&v, 1, MPI_UINT64_T, 0, x->comm), "MPI_Bcast");
  return v;
}

/* Displacements of the gathered bytes; 0, or -1 when they pass INT_MAX. */
static int displs_of(const mpi_link *x, const uint64_t *l64, int *counts, int *displs, size_t *total) {
  *total = 0;
  for (int r = 0; r < x->size; r++) {
    if (l64[r] > INT_MAX || *total > (size_t)INT_MAX - l64[r]) return -1;
    counts[r] = (int)l64[r];
    displs[r] = (int)*total;
    *total += l64[r];
  }
  return 0;
}

static int link_gather(void *ud, const void *buf, size_t len, int all, unsigned char **out, size_t *lens) {
  mpi_link *x = ud;
  uint64_t l = len, *l64 = calloc((size_t)x->size, sizeof *l64);
  int *counts = calloc((size_t)x->size, sizeof *counts), *displs = calloc((size_t)x->size, sizeof *displs);
  if (!l64 || !counts || !displs) check(x, MPI_ERR_NO_MEM, "gathering the results (memory)");
  if (all) check(x, MPI_Allgather(&l, 1, MPI_UINT64_T, l64, 1, MPI_UINT64_T, x->comm), "MPI_Allgather");
  else check(x, MPI_Gather(&l, 1, MPI_UINT64_T, l64, 1, MPI_UINT64_T, 0, x->comm), "MPI_Gather");
  int here = all || x->rank == 0;
  size_t total = 0;
  if (here && displs_of(x, l64, counts, displs, &total)) check(x, MPI_ERR_COUNT, "gathering the results (over 2 GB)");
  *out = here ? malloc(total ? total : 1) : NULL;
  if (here && !*out) check(x, MPI_ERR_NO_MEM, "gathering the results (memory)");
  if (all)
    check(x, MPI_Allgatherv(buf, (int)len, MPI_BYTE, *out, counts, displs, MPI_BYTE, x->comm), "MPI_Allgatherv");
  else
    check(x, MPI_Gatherv(buf, (int)len, MPI_BYTE, *out, counts, displs, MPI_BYTE, 0, x->comm), "MPI_Gatherv");
  for (int r = 0; here && lens && r < x->size; r++) lens[r] = (size_t)l64[r];
  free(l64);
  free(counts);
  free(displs);
  return 0;
}

static void help(void) {
  printf(
      "Usage: mpirun [-np K] toibench-mpi sweep FAMILY [sweep options]\n"
      "       mpirun [-np K] toibench-mpi hunt [hunt options]\n"
      "The sweep and hunt commands of toibench shared among the K processes of an MPI\n"
      "job (Open MPI; Slurm: srun or mpirun in a batch script), with the same options\n"
      "('toibench-mpi sweep --help', 'toibench-mpi hunt --help'). Rank 0 writes the\n"
      "result, byte-identical to a one-process 'toibench sweep' or 'toibench hunt'\n"
      "with the same options, for any K. Each process runs -j threads.\n"
      "  sweep  the cases are cut into units (a multiple of 16384 cases, about 8 per\n"
      "         process, at most 2^22) handed out one at a time from a counter at rank\n"
      "         0, so a slow process takes fewer; the accumulators are merged at rank\n"
      "         0 as 'toibench merge' does. --checkpoint FILE: rank 0 writes FILE (put\n"
      "         it on a file system rank 0 sees on a rerun); after a failure, rerun the\n"
      "         same command with --resume. --shard I/N shares the shard's cases\n"
      "  hunt   the global pass is shared in batches of 4096 cases, the lists merged\n"
      "         on every rank; the local search of each kept case runs on one rank\n"
      "  --solver, --solver-cmd: every process starts its own solver processes\n"
      "A process that dies stops the job: mpirun exits non-zero and names its rank.\n"
      "Test hook (tests only): TOIBENCH_MPI_TEST_DIE=R:N makes rank R abort when it\n"
      "asks for a unit of work after N units.\n"
      "Exit status: as toibench (0 success, 1 runtime failure, 2 usage error, 3 invalid\n"
      "input); mpirun exits non-zero when a process does.\n");
}

/* The test hook's countdown for this rank (-1: none). */
static long die_after(int rank) {
  const char *e = getenv("TOIBENCH_MPI_TEST_DIE");
  int r;
  long n;
  if (!e || sscanf(e, "%d:%ld", &r, &n) != 2 || r != rank || n < 0) return -1;
  return n;
}

/* sweep or hunt with the link; EXIT_* of the command. */
static int run_command(mpi_link *x, int argc, char **argv) {
  sweep_dist d = {x, x->rank, x->size, link_next, link_gather, link_bcast};
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    if (argc < 2) fprintf(stderr, "toibench-mpi: no command given (sweep or hunt)\n");
    if (x->rank == 0 && argc >= 2) help();
    return argc < 2 ? EXIT_USAGE : EXIT_OK;
  }
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--time-only")) {
      if (x->rank == 0) fprintf(stderr, "toibench-mpi: --time-only measures one process: use toibench\n");
      return EXIT_USAGE;
    }
  if (!strcmp(argv[1], "sweep")) return cmd_sweep_dist(argc - 1, argv + 1, &d);
  if (!strcmp(argv[1], "hunt")) return cmd_hunt_dist(argc - 1, argv + 1, &d);
  if (x->rank == 0)
    fprintf(stderr, "toibench-mpi: '%s' is not shared among processes (sweep or hunt): use toibench\n", argv[1]);
  return EXIT_USAGE;
}

int main(int argc, char **argv) {
  int provided;
  mpi_link x;
  memset(&x, 0, sizeof x);
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "toibench-mpi: MPI_Init_thread failed\n");
    return EXIT_RUNTIME;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &x.size);
  if (gethostname(x.host, sizeof x.host - 1)) snprintf(x.host, sizeof x.host, "?");
  check(&x, MPI_Comm_dup(MPI_COMM_WORLD, &x.comm), "MPI_Comm_dup");
  check(&x, MPI_Comm_set_errhandler(x.comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(&x, MPI_Win_allocate(x.rank == 0 ? sizeof *x.counter : 0, sizeof *x.counter, MPI_INFO_NULL, x.comm,
                             &x.counter, &x.win), "MPI_Win_allocate");
  check(&x, MPI_Win_set_errhandler(x.win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  if (x.rank == 0) *x.counter = 0;
  check(&x, MPI_Barrier(x.comm), "MPI_Barrier");
  x.die_after = die_after(x.rank);
  /* Only rank 0 writes to stdout (help, summaries); the others' would repeat it. */
  if (x.rank != 0 && !freopen("/dev/null", "w", stdout)) check(&x, MPI_ERR_FILE, "redirecting stdout");
  int rc = run_command(&x, argc, argv);
  fflush(stdout);
  MPI_Win_free(&x.win);
  MPI_Comm_free(&x.comm);
  MPI_Finalize();
  return rc;
}
