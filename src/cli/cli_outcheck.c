/* cli_outcheck.c: every output of a command checked before its work: not an input, not another output, creatable. */
#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "cli_outcheck.h"
#include "solvers.h"

/* What a name stands for, for telling two names of one file apart. */
enum {
  FID_NONE, /* never the same as anything: a device, a pipe, a missing input */
  FID_FILE, /* an existing regular file: dev, ino */
  FID_NEW,  /* a file still to be created: its folder's dev, ino, and its name there */
  FID_DIR   /* an output with a folder in its place (refused in the second pass) */
};

typedef struct file_id {
  int kind;
  int std;    /* standard input or output */
  int probe;  /* an output that cli_out_open creates as a temporary beside target */
  dev_t dev;
  ino_t ino;
  char name[NAME_MAX + 1];
  char target[PATH_MAX + 1];
} file_id;

static int is_std(const char *path) { return !path || !strcmp(path, "-"); }

/* An open descriptor (standard input or output) as a file_id. */
static void id_of_fd(file_id *id, int fd) {
  struct stat sb;
  id->std = 1;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
    id->kind = FID_FILE;
    id->dev = sb.st_dev;
    id->ino = sb.st_ino;
  }
}

/* A file still to be created at target: its folder and name (the folder unknown: FID_NONE). */
static void id_new(file_id *id) {
  char folder[PATH_MAX + 1];
  const char *slash = strrchr(id->target, '/');
  if (!slash) snprintf(folder, sizeof folder, ".");
  else if (slash == id->target) snprintf(folder, sizeof folder, "/");
  else snprintf(folder, sizeof folder, "%.*s", (int)(slash - id->target), id->target);
  const char *base = slash ? slash + 1 : id->target;
  size_t len = strlen(base);
  struct stat sb;
  id->probe = 1;
  if (len >= sizeof id->name) return; /* no file has such a name: the probe says why */
  memcpy(id->name, base, len + 1);
  if (stat(folder, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    id->kind = FID_NEW;
    id->dev = sb.st_dev;
    id->ino = sb.st_ino;
  }
}

/* An output's file_id, the path resolved as cli_out_open resolves it: an
   existing file through its real path, a dangling symbolic link to the file
   it names (one level, relative to the link's folder). */
static void id_output(file_id *id, const char *path) {
  memset(id, 0, sizeof *id);
  if (is_std(path)) {
    id_of_fd(id, STDOUT_FILENO);
    return;
  }
  snprintf(id->target, sizeof id->target, "%s", path);
  struct stat sb;
  if (stat(path, &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) {
      id->kind = FID_DIR;
    } else if (S_ISREG(sb.st_mode)) {
      id->kind = FID_FILE;
      id->dev = sb.st_dev;
      id->ino = sb.st_ino;
      id->probe = 1;
      char *real = realpath(path, NULL);
      if (real) snprintf(id->target, sizeof id->target, "%s", real);
      free(real);
    }
    return; /* a device or a pipe is written in place: nothing to compare or probe */
  }
  char link[PATH_MAX + 1];
  ssize_t n = lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) ? readlink(path, link, sizeof link - 1) : -1;
  if (n > 0) {
    link[n] = 0;
    const char *slash = strrchr(path, '/');
    int w = link[0] == '/' || !slash ? snprintf(id->target, sizeof id->target, "%s", link)
                                     : snprintf(id->target, sizeof id->target, "%.*s/%s", (int)(slash - path), path, link);
    if (w < 0 || (size_t)w >= sizeof id->target) snprintf(id->target, sizeof id->target, "%s", path);
  }
  id_new(id);
}

/* An input's file_id: only an existing regular file can be overwritten. */
static void id_input(file_id *id, const char *path) {
  memset(id, 0, sizeof *id);
  if (!strcmp(path, "-")) {
    id_of_fd(id, STDIN_FILENO);
    return;
  }
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
    id->kind = FID_FILE;
    id->dev = sb.st_dev;
    id->ino = sb.st_ino;
  }
}

static int same_id(const file_id *a, const file_id *b) {
  if (a->kind != b->kind || (a->kind != FID_FILE && a->kind != FID_NEW)) return 0;
  return a->dev == b->dev && a->ino == b->ino && (a->kind == FID_FILE || !strcmp(a->name, b->name));
}

/* How a message names a file: "-o FILE", "FILE", "standard output". */
static void label(char *buf, size_t n, const cli_file *f, int output) {
  if (is_std(f->path)) snprintf(buf, n, "%s", output ? "standard output" : "standard input");
  else if (f->opt) snprintf(buf, n, "%s %s", f->opt, f->path);
  else snprintf(buf, n, "%s", f->path);
}

/* Creates and removes a temporary where cli_out_open will write target's:
   without a name (O_TMPFILE) where the file system allows it, else named as
   cli_out's named temporaries (cli_temp_pattern: recognisable, and removed by
   a later run once this process is gone), with the signals held so that none
   can leave it behind. 0, or -1 with errno set. */
static int probe(const char *target) {
  char dir[PATH_MAX], tmp[PATH_MAX + 128];
  const char *slash = strrchr(target, '/');
  const char *name = slash ? slash + 1 : target;
  if (!slash) {
    snprintf(dir, sizeof dir, ".");
  } else if ((size_t)(slash - target) >= sizeof dir) {
    errno = ENAMETOOLONG;
    return -1;
  } else {
    snprintf(dir, sizeof dir, "%.*s", slash == target ? 1 : (int)(slash - target), target);
  }
#ifdef O_TMPFILE
  int ufd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (ufd >= 0) {
    close(ufd);
    return 0;
  }
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOSYS) return -1;
#endif
  if (cli_temp_pattern(tmp, sizeof tmp, dir, name)) return -1;
  sigset_t old;
  cli_hold_signals(&old);
  int fd = mkostemp(tmp, O_CLOEXEC), err = errno;
  if (fd >= 0) {
    close(fd);
    unlink(tmp);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  errno = err;
  return fd >= 0 ? 0 : -1;
}

/* (a): an output that is an input or another output. EXIT_OK or EXIT_USAGE. */
static int check_names(const char *cmd, const cli_file *out, const file_id *oid, size_t nout, const cli_file *in,
                       const file_id *iid, size_t nin) {
  char a[PATH_MAX + 64], b[PATH_MAX + 64];
  for (size_t k = 0; k < nout; k++) {
    if (!out[k].path) continue;
    for (size_t j = 0; j < nin; j++) {
      if (!in[j].path || !same_id(&oid[k], &iid[j])) continue;
      label(a, sizeof a, &out[k], 1);
      label(b, sizeof b, &in[j], 0);
      if (is_std(in[j].path))
        return cli_usage_error(cmd, "%s is the file on standard input: refusing to overwrite it", a);
      int spelt_alike = !is_std(out[k].path) && !strcmp(out[k].path, in[j].path);
      return cli_usage_error(cmd, "%s is %sthe input %s: refusing to overwrite it", a,
                             spelt_alike ? "" : "the same file as ", b);
    }
    for (size_t j = 0; j < k; j++) {
      if (!out[j].path) continue;
      if (!(oid[j].std && oid[k].std) && same_id(&oid[j], &oid[k])) {
        label(a, sizeof a, &out[j], 1);
        label(b, sizeof b, &out[k], 1);
        return cli_usage_error(cmd, "%s and %s name the same file: one would overwrite the other", a, b);
      }
    }
  }
  return EXIT_OK;
}

int cli_outputs_check(const char *cmd, const cli_file *outputs, size_t nout, const cli_file *inputs, size_t nin) {
  file_id *oid = calloc(nout ? nout : 1, sizeof *oid), *iid = calloc(nin ? nin : 1, sizeof *iid);
  int rc = oid && iid ? EXIT_OK : EXIT_RUNTIME;
  if (rc != EXIT_OK) cli_error("%s: out of memory", cmd);
  for (size_t k = 0; rc == EXIT_OK && k < nout; k++)
    if (outputs[k].path) id_output(&oid[k], outputs[k].path);
  for (size_t j = 0; rc == EXIT_OK && j < nin; j++)
    if (inputs[j].path) id_input(&iid[j], inputs[j].path);
  if (rc == EXIT_OK) rc = check_names(cmd, outputs, oid, nout, inputs, iid, nin);
  /* (b), once every name is known to be distinct: where each output will be created. */
  for (size_t k = 0; rc == EXIT_OK && k < nout; k++) {
    if (!outputs[k].path || is_std(outputs[k].path)) continue;
    if (!outputs[k].path[0]) { /* cli_out_open would write ".tmp.XXXXXX" and fail to rename it at the end */
      cli_error("%s '': cannot create: %s", outputs[k].opt ? outputs[k].opt : "output", strerror(ENOENT));
      rc = EXIT_RUNTIME;
    } else if (oid[k].kind == FID_DIR) {
      cli_error("%s: is a directory", outputs[k].path);
      rc = EXIT_RUNTIME;
    } else if (oid[k].probe && probe(oid[k].target)) {
      cli_error("%s: cannot create: %s", outputs[k].path, strerror(errno));
      rc = EXIT_RUNTIME;
    }
  }
  free(oid);
  free(iid);
  return rc;
}

int cli_inputs_gather(cli_inputs *in, char *const *files, int nfiles, int argc, char **argv, const cli_file *extra,
                      size_t nextra) {
  size_t most = (size_t)(nfiles > 0 ? nfiles : 0) + (size_t)(argv && argc > 0 ? argc : 0) + nextra;
  memset(in, 0, sizeof *in);
  in->v = calloc(most ? most : 1, sizeof *in->v);
  in->libs = calloc(argv && argc > 0 ? (size_t)argc : 1, sizeof *in->libs);
  int bad = !in->v || !in->libs;
  for (int i = 0; !bad && i < nfiles; i++) in->v[in->n++] = (cli_file){NULL, files[i]};
  /* As cli_timeout_scan reads --timeout: every --solver and its value. */
  for (int i = 1; !bad && argv && i + 1 < argc; i++) {
    if (strcmp(argv[i], "--solver")) continue;
    char path[PATH_MAX + 1], sym[128];
    solvers_split_plugin(argv[++i], path, sizeof path, sym, sizeof sym);
    if (!(in->libs[in->nlibs] = strdup(path))) bad = 1;
    else in->v[in->n++] = (cli_file){"--solver", in->libs[in->nlibs++]};
  }
  for (size_t j = 0; !bad && j < nextra; j++) in->v[in->n++] = extra[j];
  if (!bad) return 0;
  cli_inputs_free(in);
  cli_error("out of memory");
  return -1;
}

void cli_inputs_free(cli_inputs *in) {
  for (size_t j = 0; j < in->nlibs; j++) free(in->libs[j]);
  free(in->libs);
  free(in->v);
  memset(in, 0, sizeof *in);
}

int cli_outputs_check_args(const char *cmd, const cli_file *outputs, size_t nout, char *const *files, int nfiles,
                           int argc, char **argv, const cli_file *extra, size_t nextra) {
  cli_inputs in;
  if (cli_inputs_gather(&in, files, nfiles, argc, argv, extra, nextra)) return EXIT_RUNTIME;
  int rc = cli_outputs_check(cmd, outputs, nout, in.v, in.n);
  cli_inputs_free(&in);
  return rc;
}

int cli_path_inside(const char *path, const char *dir) {
  struct stat d, s;
  if (stat(dir, &d) != 0) return 0;
  char *real = realpath(path, NULL);
  if (!real) return 0;
  int inside = 0;
  for (;;) {
    if (stat(real, &s) == 0 && s.st_dev == d.st_dev && s.st_ino == d.st_ino) {
      inside = 1;
      break;
    }
    char *slash = strrchr(real, '/');
    if (!slash || (slash == real && !real[1])) break;
    slash[slash == real] = 0; /* "/a" goes up to "/" */
  }
  free(real);
  return inside;
}

int cli_outdir_check(const char *cmd, const cli_file *dir, const cli_file *inputs, size_t nin) {
  char a[PATH_MAX + 64], b[PATH_MAX + 64];
  if (!dir->path) return EXIT_OK;
  for (size_t j = 0; j < nin; j++) {
    if (!inputs[j].path || is_std(inputs[j].path) || !cli_path_inside(inputs[j].path, dir->path)) continue;
    label(a, sizeof a, dir, 1);
    label(b, sizeof b, &inputs[j], 0);
    struct stat sd, si;
    if (stat(dir->path, &sd) == 0 && stat(inputs[j].path, &si) == 0 && sd.st_dev == si.st_dev &&
        sd.st_ino == si.st_ino)
      return cli_usage_error(cmd, "%s is the input %s: refusing to overwrite it", a, b);
    return cli_usage_error(cmd, "the input %s is inside %s, which is replaced as a whole: refusing to remove it", b, a);
  }
  return EXIT_OK;
}
