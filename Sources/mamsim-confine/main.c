/*
 * mamsim-confine: starts one simulated app in a default-deny sandbox (CConfine.h says what it
 * may use), then executes it with the sandbox in force for it and all it starts.
 *
 *   mamsim-confine --probe
 *       prints the kernel's Landlock ABI version and what confinement puts in force, e.g.
 *       "7 filesystem tcp signals abstract-unix device-ioctl pid-namespace", and exits 0; or
 *       says why not and exits 1.
 *   mamsim-confine [--read PATH]... [--write PATH]... [--memory BYTES] [--file-size BYTES]
 *                  [--open-files N] [--processes N] [--cgroup PROCS_FILE] [--device-cgroup PROCS_FILE]
 *                  -- PROGRAM [ARG]...
 *       each --read path (the program's own files, an interpreter) is readable and
 *       executable, each --write path (the app's container and app groups) fully usable;
 *       nothing else of the machine beyond the system's libraries. --cgroup joins the cgroup
 *       whose cgroup.procs file it names (the host made it, with a process limit), and
 *       --device-cgroup the device's memory cgroup where memory is a hierarchy of its own. Where it
 *       may, the program runs in a PID namespace of its own (see enter_pid_namespace).
 */
#define _GNU_SOURCE
#include <CConfine.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#endif

#define MAX_PATHS 1024

static void die(const char *what, const char *detail) {
  fprintf(stderr, "mamsim-confine: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(126);
}

static unsigned long long number(const char *text, const char *option) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || !end || *end || text[0] == '-' || text[0] == '\0') die("not a number", option);
  return v;
}

#ifdef __linux__
static volatile pid_t forward_to = 0;

static void forward(int sig) {
  if (forward_to > 0) kill(forward_to, sig);
}

/* Signals the host sends (teardown, simulated crashes) reach the app through each process
   between them. */
static void forward_signals_to(pid_t pid, const sigset_t *restore) {
  forward_to = pid;
  int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGALRM};
  for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; k++) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    sigaction(forwarded[k], &action, NULL);
  }
  sigprocmask(SIG_SETMASK, restore, NULL);
}

/* Ends this process as `status` (a raw wait status) says the app ended. */
static void end_as(int status) {
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, WTERMSIG(status));
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    kill(getpid(), WTERMSIG(status));
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 126);
}

static int mount_own_proc(void) {
  return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
         mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0;
}

/* Whether this process may make a PID namespace with a /proc of its own (tried in
   short-lived children: some containers allow the namespace but not the mount). */
static int pid_namespace_available(int flags) {
  pid_t pid = fork();
  if (pid == 0) {
    if (unshare(CLONE_NEWPID | CLONE_NEWNS | flags) != 0) _exit(1);
    pid_t inner = fork();
    if (inner == 0) _exit(mount_own_proc() ? 0 : 1);
    int status = 0;
    if (inner < 0 || waitpid(inner, &status, 0) != inner) _exit(1);
    _exit(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A PID namespace of its own, where the kernel lets this launcher make one (root, as on
   CI's machines): its /proc (mounted anew) lists only the app's own processes — not the
   host's nor its siblings' command lines — and when the app ends, the kernel ends everything
   it started. Three processes: this launcher stays outside as the host's child; inside, a
   small init (process 1) reaps and passes signals on, since process 1 of a namespace gets
   only the signals it handles; the app is process 2, so a simulated crash's signal acts on
   it as on any process. The app's end (status or signal) travels back through a pipe, and
   the launcher ends the same way. Returns in the app; where no namespace can be made,
   returns at once and the app runs without one. */
static void enter_pid_namespace(void) {
  /* A network namespace of its own too where it may: its /proc/net lists none of the
     machine's sockets (their paths are what a child would aim at) and no abstract socket of
     the machine's is in it. The app needs no network: its channel is a descriptor. */
  if (unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET) != 0 && unshare(CLONE_NEWPID | CLONE_NEWNS) != 0) return;
  int channel = fcntl(3, F_GETFD) != -1; /* the host's channel, which only the app keeps */
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) die("cannot make the launcher's pipe", strerror(errno));
  sigset_t all, previous;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &previous);
  pid_t init = fork();
  if (init < 0) die("cannot start the app's PID namespace", strerror(errno));
  if (init > 0) {
    if (channel) close(3);
    close(report[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    forward_signals_to(init, &previous);
    int status = 0, app_status = 0;
    while (waitpid(init, &status, 0) < 0 && errno == EINTR) {}
    ssize_t n;
    do { n = read(report[0], &app_status, sizeof app_status); } while (n < 0 && errno == EINTR);
    end_as(n == (ssize_t)sizeof app_status ? app_status : status);
  }
  /* Process 1 of the namespace. */
  close(report[0]);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* Where the mount is refused (some containers), the app still gets the namespace: its
     processes end with it, though /proc shows the machine's (the probe reports no
     pid-namespace then). */
  (void)mount_own_proc();
  pid_t app = fork();
  if (app < 0) die("cannot start the app in its PID namespace", strerror(errno));
  if (app > 0) {
    if (channel) close(3);
    forward_signals_to(app, &previous);
    for (;;) {
      int status = 0;
      pid_t ended = wait(&status);
      if (ended < 0 && errno == EINTR) continue;
      if (ended == app || ended < 0) {
        ssize_t n;
        do { n = write(report[1], &status, sizeof status); } while (n < 0 && errno == EINTR);
        _exit(0); /* process 1 leaving ends every process of the namespace */
      }
    }
  }
  /* The app: process 2. */
  close(report[1]);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigprocmask(SIG_SETMASK, &previous, NULL);
}
#endif

int main(int argc, char **argv) {
  int abi = mamsim_landlock_abi();
  if (argc == 2 && !strcmp(argv[1], "--probe")) {
    if (abi < 1) {
      printf("Landlock is not available (%s)\n", strerror(-abi));
      return 1;
    }
    unsigned f = mamsim_confinement_features();
    int pidns = 0, netns = 0;
#ifdef __linux__
    pidns = pid_namespace_available(0);
    netns = pidns && pid_namespace_available(CLONE_NEWNET);
#endif
    printf("%d%s%s%s%s%s%s%s%s\n", abi, f & MAMSIM_CONFINE_FILESYSTEM ? " filesystem" : "", f & MAMSIM_CONFINE_TCP ? " tcp" : "",
           f & MAMSIM_CONFINE_SIGNALS ? " signals" : "", f & MAMSIM_CONFINE_ABSTRACT_UNIX ? " abstract-unix" : "",
           f & MAMSIM_CONFINE_DEVICE_IOCTL ? " device-ioctl" : "", f & MAMSIM_CONFINE_UNIX_PATH ? " unix-path" : "",
           pidns ? " pid-namespace" : "", netns ? " net-namespace" : "");
    return 0;
  }
  static const char *read[MAX_PATHS], *write[MAX_PATHS];
  int n_read = 0, n_write = 0, i = 1;
  struct mamsim_limits limits = {0, 0, 0, 0, NULL, NULL};
  for (; i < argc; i++) {
    if (!strcmp(argv[i], "--")) { i++; break; }
    if (i + 1 >= argc) die("this option needs a value", argv[i]);
    if (!strcmp(argv[i], "--read")) {
      if (n_read == MAX_PATHS) die("too many --read paths", NULL);
      read[n_read++] = argv[++i];
    } else if (!strcmp(argv[i], "--write")) {
      if (n_write == MAX_PATHS) die("too many --write paths", NULL);
      write[n_write++] = argv[++i];
    } else if (!strcmp(argv[i], "--memory")) limits.memory_bytes = number(argv[++i], "--memory");
    else if (!strcmp(argv[i], "--file-size")) limits.file_bytes = number(argv[++i], "--file-size");
    else if (!strcmp(argv[i], "--open-files")) limits.open_files = number(argv[++i], "--open-files");
    else if (!strcmp(argv[i], "--processes")) limits.processes = number(argv[++i], "--processes");
    else if (!strcmp(argv[i], "--cgroup")) limits.cgroup_procs = argv[++i];
    else if (!strcmp(argv[i], "--device-cgroup")) limits.device_cgroup_procs = argv[++i];
    else die("unknown argument", argv[i]);
  }
  if (i >= argc) die("usage", "mamsim-confine [--read PATH]... [--write PATH]... -- PROGRAM [ARG]...");
  char error[4400];
#ifdef __linux__
  enter_pid_namespace();
#endif
  if (mamsim_confine(read, n_read, write, n_write, &limits, error, sizeof error) != 0) die(error, NULL);
#ifdef __linux__
  /* Only stdin, stdout, stderr and the channel (fd 3) go on to the program. */
  syscall(SYS_close_range, 4, ~0U, 0);
#endif
  /* ETXTBSY: the program was just written and another process forked while it was open for
     writing (a well-known race of exec after write); it clears as soon as that fd closes. */
  for (int attempt = 0; attempt < 100; attempt++) {
    execv(argv[i], argv + i);
    if (errno != ETXTBSY) break;
    usleep(10000);
  }
  char why[4200];
  snprintf(why, sizeof why, "%s (%s)", argv[i], strerror(errno));
  die("cannot execute", why);
  return 126;
}
