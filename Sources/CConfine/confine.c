/*
 * Default-deny confinement of one simulated app, shared by the launcher (mamsim-confine, which
 * then executes the app) and the built-in runtime (mamsim-app, which confines itself before it
 * reads its channel, saving an exec per app). What is granted is listed in CConfine.h.
 *
 * Landlock only ever adds rights beneath the paths it is given, so everything not named here
 * or by the host stays denied: another device, the user's home and cache, the scenario and its
 * inputs, /tmp, /dev/tty. The headers of older systems lack the newer ABIs' constants and
 * ruleset fields, so they are spelled out here; the kernel is asked which ABI it has.
 *
 * One file of about four hundred lines, on purpose: the resource limits, the capabilities
 * and their bounding set, the Landlock ruleset and the seccomp filter are set up in the one
 * order the kernel allows (each step needs a right the next one drops), each failure
 * explained where it happens.
 */
#define _GNU_SOURCE
#include "CConfine.h"
#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ACCESS_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define ACCESS_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */
#define ACCESS_NET_BIND_TCP (1ULL << 0)   /* ABI 4 */
#define ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)

/* The ruleset attribute as ABI 6 has it; older kernels are given its first 8 or 16 bytes. */
struct ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

int mamsim_landlock_abi(void) {
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? -errno : (int)v;
}

unsigned mamsim_confinement_features(void) {
  int abi = mamsim_landlock_abi();
  unsigned f = 0;
  if (abi >= 1) f |= MAMSIM_CONFINE_FILESYSTEM;
  if (abi >= 4) f |= MAMSIM_CONFINE_TCP;
  if (abi >= 5) f |= MAMSIM_CONFINE_DEVICE_IOCTL;
  if (abi >= 6) f |= MAMSIM_CONFINE_SIGNALS | MAMSIM_CONFINE_ABSTRACT_UNIX;
#if defined(__x86_64__) || defined(__aarch64__)
  if (abi >= 1) f |= MAMSIM_CONFINE_UNIX_PATH; /* the seccomp filter goes with every confinement */
#endif
  return f;
}

/* Every filesystem right the kernel's ABI knows: all are handled, so all are denied unless
   granted. */
static uint64_t handled_fs_rights(int abi) {
  uint64_t r = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
               LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
               LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
               LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
               LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) r |= 1ULL << 13; /* REFER */
  if (abi >= 3) r |= ACCESS_FS_TRUNCATE;
  if (abi >= 5) r |= ACCESS_FS_IOCTL_DEV;
  return r;
}

static const uint64_t READ_EXEC = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
static const uint64_t FILE_RIGHTS = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
                                    LANDLOCK_ACCESS_FS_WRITE_FILE | ACCESS_FS_TRUNCATE | ACCESS_FS_IOCTL_DEV;
/* Making devices is never granted, even in the app's own container. */
static const uint64_t NEVER = LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK | ACCESS_FS_IOCTL_DEV;

static int fail(char *error, size_t size, const char *what, const char *detail) {
  if (error && size) snprintf(error, size, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
  return -1;
}

/* Opens a path the host resolved (every link followed) when it checked it, refusing any
   symbolic link on the way: a link swapped in since (in an app group, in a declared folder)
   cannot move the rule elsewhere. Without openat2 (Linux before 5.6) the path is opened and
   what the descriptor names is compared with what was asked. */
static int open_resolved(const char *path) {
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS) return fd;
  fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return fd;
  char link[64], named[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, named, sizeof named - 1);
  if (n >= 0) named[n] = 0;
  if (n < 0 || strcmp(named, path) != 0) {
    close(fd);
    errno = ELOOP;
    return -1;
  }
  return fd;
}

/* Whether what `fd` names can hold a rule (not a pipe, not a socket); `rights` is narrowed to
   a file's when it is not a directory. */
static int can_hold_rule(int fd, uint64_t *rights) {
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return 0;
  if (!S_ISDIR(st.st_mode)) *rights &= FILE_RIGHTS;
  return 1;
}

/* Grants `rights` beneath `path` (only a file's rights when it is not a directory). A path
   that does not exist grants nothing; one that leads to a pipe or a socket can hold no rule
   and is left out, so it stays denied. `resolved`: the host's path, opened without following
   any link (open_resolved); a link found on it now fails the confinement. */
static int allow(int ruleset, const char *path, uint64_t rights, uint64_t handled, int resolved, char *error, size_t size) {
  int fd = resolved ? open_resolved(path) : open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (resolved && (errno == ELOOP || errno == EXDEV)) {
      char why[4200];
      snprintf(why, sizeof why, "%s (a symbolic link lies on it now, which the host did not see when it checked it)", path);
      return fail(error, size, "a path changed since the host checked it", why);
    }
    return 0;
  }
  if (!can_hold_rule(fd, &rights)) {
    close(fd);
    return 0;
  }
  struct landlock_path_beneath_attr attr = {.allowed_access = rights & handled, .parent_fd = fd};
  int status = attr.allowed_access ? (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) : 0;
  int saved = errno;
  close(fd);
  if (status != 0) {
    char why[4200];
    snprintf(why, sizeof why, "%s (%s)", path, strerror(saved));
    return fail(error, size, "cannot add a rule for", why);
  }
  return 0;
}

/* What every app reads of the system. /etc is not granted whole: it holds /etc/shadow, SSH
   host keys and private TLS keys. */
static const char *const SYSTEM_READ[] = {
  "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
  "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
  "/etc/localtime", "/etc/timezone", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
  "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
  "/etc/mime.types", "/etc/os-release", "/etc/locale.alias", "/etc/ssl/certs", "/etc/ssl/openssl.cnf",
  "/etc/ca-certificates", "/etc/alternatives", "/etc/python3", "/etc/python3.11", "/etc/python3.12",
  "/etc/python3.13", "/etc/inputrc", "/etc/terminfo",
  /* /proc to read: libdispatch (every Swift program's concurrency) watches its worker threads
     through /proc/<thread id>/stat, a path no rule made before the threads exist can name, and
     traps when it cannot open it. Landlock's ptrace scoping still denies other processes'
     environ, maps, mem, exe, root and descriptors; their cmdline and status stay readable. */
  "/proc", "/sys/devices/system/cpu",
  "/dev/urandom", "/dev/random",
  NULL,
};

/* The system's read rules and the writable devices, opened once by a template
   (mamsim_confine_prepare) and inherited by every app forked from it: opening, checking and
   closing each of the system's paths was the largest part of a forked app's confinement.
   A path is named by the inode it led to when the template opened it, as a rule always is. */
struct prepared_rule { int fd; uint64_t rights; };
static struct prepared_rule prepared[64];
static int prepared_count = -1;

static const uint64_t DEV_NULL_RIGHTS = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | ACCESS_FS_TRUNCATE;
static const uint64_t DEV_ZERO_RIGHTS = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE;

/* Opens a system path as `allow` does (links followed); one that can hold no rule is left out. */
static void prepare_rule(const char *path, uint64_t rights) {
  if (prepared_count >= (int)(sizeof prepared / sizeof prepared[0])) return;
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return;
  if (can_hold_rule(fd, &rights)) prepared[prepared_count++] = (struct prepared_rule){fd, rights};
  else close(fd);
}

/* Set by mamsim_confine_prepare once the template has emptied its bounding set: every process
   forked from it inherits that set, and dropping 64 capabilities again (64 calls) was a tenth of
   a forked app's start. */
static int bounding_set_emptied;
static int empty_bounding_set(char *error, size_t size);
/* Set once the template runs under the system call filter: every app forked from it inherits
   the filter, which compiling and installing again was 6 % of a forked app's CPU samples. */
static int syscalls_restricted;
static int restrict_syscalls(char *error, size_t size);

int mamsim_confine_prepare(void) {
  if (prepared_count >= 0) return prepared_count;
  prepared_count = 0;
  for (const char *const *p = SYSTEM_READ; *p; p++) prepare_rule(*p, READ_EXEC);
  prepare_rule("/dev/null", DEV_NULL_RIGHTS);
  prepare_rule("/dev/zero", DEV_ZERO_RIGHTS);
  /* The same calls an app would make, whose failures it ignores in the same way. */
  bounding_set_emptied = empty_bounding_set(NULL, 0) == 0;
  syscalls_restricted = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && restrict_syscalls(NULL, 0) == 0;
  return prepared_count;
}

void mamsim_confine_release(void) {
  for (int k = 0; k < prepared_count; k++) close(prepared[k].fd);
  prepared_count = -1;
}

/* Adds the prepared rules (mamsim_confine closes their descriptors once it is done). */
static int allow_prepared(int ruleset, uint64_t handled, char *error, size_t size) {
  for (int k = 0; k < prepared_count; k++) {
    struct landlock_path_beneath_attr attr = {.allowed_access = prepared[k].rights & handled, .parent_fd = prepared[k].fd};
    if (attr.allowed_access && syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0)
      return fail(error, size, "cannot add a rule for a system path", strerror(errno));
  }
  return 0;
}

/* Every capability goes: a child running as root keeps uid 0 but cannot override file modes,
   push input into a terminal (TIOCSTI), mount, trace or change limits back. */
static int empty_bounding_set(char *error, size_t size) {
  for (int cap = 0; cap <= 63; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && errno != EPERM)
      return fail(error, size, "cannot drop a capability from the bounding set", strerror(errno));
  }
  return 0;
}

static int drop_capabilities(char *error, size_t size) {
  if (!bounding_set_emptied && empty_bounding_set(error, size) != 0) return -1;
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &header, data) != 0) return fail(error, size, "cannot drop its capabilities", strerror(errno));
  return 0;
}

/* A seccomp filter: no socket() at all — a child reaches no one but the host, over the
   channel it was given. That covers UDP and raw sockets, which Landlock does not, and unix
   sockets: Landlock cannot stop a connect() to a socket by its path (the machine's docker,
   ssh-agent or D-Bus sockets, another child's). No datagram pair either (its ends may send to
   a path), no io_uring (which makes and connects sockets without these calls), and none of the
   calls that reach into other processes' memory, nor a change of the CPUs it may run on. A
   connected stream pair stays allowed (interpreters' own plumbing: it reaches nothing by
   path). Everything else is allowed; a denied call fails with EPERM. */
static int restrict_syscalls(char *error, size_t size) {
#if defined(__x86_64__)
  const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  const unsigned arch = AUDIT_ARCH_AARCH64;
#else
  (void)error; (void)size;
  return 0;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
#define DENY (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define ALLOW SECCOMP_RET_ALLOW
  struct sock_filter filter[] = {
    /*  0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    /*  1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
    /*  2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    /*  3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    /*  4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 14, 0), /* x32 calls: a second numbering */
    /*  5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 13, 0),
    /*  6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 5, 0),
    /*  7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 11, 0),
    /*  8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 10, 0),
    /*  9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 9, 0),
    /* The CPUs it may use are the host's to choose: with a large fleet the host keeps one
       for its loop (BrokerCPU), and an app that moved itself back would slow every other. */
    /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_setaffinity, 8, 0),
    /* 11 */ BPF_STMT(BPF_RET | BPF_K, ALLOW),
    /* socketpair: of the unix family (the first argument's low 32 bits), and a stream or
       sequenced-packet pair only (the type's low bits; SOCK_CLOEXEC and SOCK_NONBLOCK lie
       above them): a datagram end, or a raw one (which unix sockets make a datagram one),
       may send to a path. */
    /* 12 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    /* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 5),
    /* 14 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
    /* 15 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf),
    /* 16 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 1, 0),
    /* 17 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_SEQPACKET, 0, 1),
    /* 18 */ BPF_STMT(BPF_RET | BPF_K, ALLOW),
    /* 19 */ BPF_STMT(BPF_RET | BPF_K, DENY),
  };
  struct sock_fprog program = {.len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) return fail(error, size, "cannot install its system call filter", strerror(errno));
  return 0;
#undef DENY
#undef ALLOW
#endif
}

static int set_limit(int resource, unsigned long long value, const char *name, char *error, size_t size) {
  if (!value) return 0;
  struct rlimit current;
  if (getrlimit(resource, &current) == 0 && current.rlim_max != RLIM_INFINITY && current.rlim_max < value) value = current.rlim_max;
  struct rlimit limit = {.rlim_cur = value, .rlim_max = value};
  if (setrlimit(resource, &limit) != 0) return fail(error, size, "cannot set the limit", name);
  return 0;
}

static int confine_self(const char *const *read_paths, int read_count, const char *const *write_paths, int write_count,
                        const struct mamsim_limits *limits, char *error, size_t size);

int mamsim_confine(const char *const *read_paths, int read_count, const char *const *write_paths, int write_count,
                   const struct mamsim_limits *limits, char *error, size_t size) {
  int status = confine_self(read_paths, read_count, write_paths, write_count, limits, error, size);
  mamsim_confine_release(); /* on every way out: an app holds none of the template's descriptors */
  return status;
}

static int confine_self(const char *const *read_paths, int read_count, const char *const *write_paths, int write_count,
                        const struct mamsim_limits *limits, char *error, size_t size) {
  int abi = mamsim_landlock_abi();
  if (abi < 1) return fail(error, size, "Landlock is not available", strerror(-abi));

  /* Its own session: no controlling terminal to type into. A spawned or forked app leads its
     session already (setsid fails then, harmlessly); anything else must not run confined. */
  if (setsid() < 0 && getsid(0) != getpid()) return fail(error, size, "cannot leave the terminal's session", strerror(errno));
  /* It ends with the host even when the host is killed. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);

  struct ruleset_attr attr = {.handled_access_fs = handled_fs_rights(abi)};
  size_t attr_size = 8;
  if (abi >= 4) {
    attr.handled_access_net = ACCESS_NET_BIND_TCP | ACCESS_NET_CONNECT_TCP; /* handled, never granted */
    attr_size = 16;
  }
  if (abi >= 6) {
    attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
    attr_size = 24;
  }
  uint64_t handled = attr.handled_access_fs;
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0) return fail(error, size, "cannot create a Landlock ruleset", strerror(errno));

  int status = 0;
  if (prepared_count >= 0) {
    status = allow_prepared(ruleset, handled, error, size);
  } else {
    for (const char *const *p = SYSTEM_READ; *p && status == 0; p++) status = allow(ruleset, *p, READ_EXEC, handled, 0, error, size);
    /* Writable devices, without ioctl (no terminal, no device control). */
    if (status == 0) status = allow(ruleset, "/dev/null", DEV_NULL_RIGHTS, handled, 0, error, size);
    if (status == 0) status = allow(ruleset, "/dev/zero", DEV_ZERO_RIGHTS, handled, 0, error, size);
  }
  for (int k = 0; k < read_count && status == 0; k++) {
    if (!read_paths[k] || read_paths[k][0] != '/') { status = fail(error, size, "a path to read must be absolute", read_paths[k]); break; }
    status = allow(ruleset, read_paths[k], READ_EXEC, handled, 1, error, size);
  }
  for (int k = 0; k < write_count && status == 0; k++) {
    if (!write_paths[k] || write_paths[k][0] != '/') { status = fail(error, size, "a path to write must be absolute", write_paths[k]); break; }
    status = allow(ruleset, write_paths[k], handled & ~NEVER, handled, 1, error, size);
  }
  if (status != 0) { close(ruleset); return -1; }

  /* Its own cgroup (the host made it, with a process limit) and the device's memory cgroup
     where memory has a hierarchy of its own (cgroup v1), joined before anything is
     restricted: everything it starts is counted there, and the host ends them all with it. */
  const char *cgroups[2] = {limits ? limits->cgroup_procs : NULL, limits ? limits->device_cgroup_procs : NULL};
  for (int k = 0; k < 2; k++) {
    if (!cgroups[k]) continue;
    int fd = open(cgroups[k], O_WRONLY | O_CLOEXEC);
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (fd < 0 || write(fd, pid, (size_t)n) != n) {
      int saved = errno;
      if (fd >= 0) close(fd);
      close(ruleset);
      char why[4200];
      snprintf(why, sizeof why, "%s (%s)", cgroups[k], strerror(saved));
      return fail(error, size, "cannot join its cgroup", why);
    }
    close(fd);
  }
  if (limits) {
    if (set_limit(RLIMIT_AS, limits->memory_bytes, "on memory (RLIMIT_AS)", error, size) != 0 ||
        set_limit(RLIMIT_FSIZE, limits->file_bytes, "on file size (RLIMIT_FSIZE)", error, size) != 0 ||
        set_limit(RLIMIT_NOFILE, limits->open_files, "on open files (RLIMIT_NOFILE)", error, size) != 0 ||
        set_limit(RLIMIT_NPROC, limits->processes, "on processes (RLIMIT_NPROC)", error, size) != 0) {
      close(ruleset);
      return -1;
    }
  }
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (drop_capabilities(error, size) != 0) { close(ruleset); return -1; }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { close(ruleset); return fail(error, size, "cannot set no_new_privs", strerror(errno)); }
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) { close(ruleset); return fail(error, size, "cannot restrict itself", strerror(errno)); }
  close(ruleset);
  return syscalls_restricted ? 0 : restrict_syscalls(error, size);
}
#else
#include <stdio.h>
int mamsim_landlock_abi(void) { return -38; /* ENOSYS */ }
int mamsim_confine_prepare(void) { return 0; }
void mamsim_confine_release(void) {}
unsigned mamsim_confinement_features(void) { return 0; }
int mamsim_confine(const char *const *read, int read_count, const char *const *write, int write_count,
                   const struct mamsim_limits *limits, char *error, size_t size) {
  (void)read; (void)read_count; (void)write; (void)write_count; (void)limits;
  if (error && size) snprintf(error, size, "Landlock is not available on this system");
  return -1;
}
#endif
