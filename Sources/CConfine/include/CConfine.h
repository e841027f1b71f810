#ifndef MAMSIM_CCONFINE_H
#define MAMSIM_CCONFINE_H
#include <stddef.h>

/* The kernel's Landlock ABI version, or a negative errno when it has none. */
int mamsim_landlock_abi(void);

/* What a confinement puts in force on this kernel (bits of mamsim_confinement_features). */
#define MAMSIM_CONFINE_FILESYSTEM 1u      /* default-deny filesystem (Landlock ABI 1) */
#define MAMSIM_CONFINE_TCP 2u             /* no TCP bind or connect (ABI 4) */
#define MAMSIM_CONFINE_SIGNALS 4u         /* no signal to a process outside the app (ABI 6) */
#define MAMSIM_CONFINE_ABSTRACT_UNIX 8u   /* no abstract unix socket made outside the app (ABI 6) */
#define MAMSIM_CONFINE_DEVICE_IOCTL 16u   /* no ioctl on a device file (ABI 5) */
#define MAMSIM_CONFINE_UNIX_PATH 32u      /* no socket() at all, so no unix socket by path (seccomp) */

/* The features `mamsim_confine` puts in force on this kernel; 0 without Landlock. */
unsigned mamsim_confinement_features(void);

/* Limits set on a confined app (0 = leave the inherited limit). */
struct mamsim_limits {
  unsigned long long memory_bytes;   /* RLIMIT_AS */
  unsigned long long file_bytes;     /* RLIMIT_FSIZE: the largest file it may write */
  unsigned long long open_files;     /* RLIMIT_NOFILE */
  unsigned long long processes;      /* RLIMIT_NPROC (counted per user by the kernel) */
  const char *cgroup_procs;          /* a cgroup's cgroup.procs file to join first, or NULL */
  const char *device_cgroup_procs;   /* the device's memory cgroup (cgroup v1, a hierarchy of its own), or NULL */
};

/* Restricts the calling process (and everything it starts) to a default-deny sandbox:
   - read and execute: the system's programs and libraries (/usr, /lib*, /bin, /sbin), the
     few files of /etc the loader, libc and interpreters read (no secret: no shadow, no ssh
     keys, no private TLS keys), /proc (other processes' environment, memory and descriptors
     stay denied by Landlock's ptrace scoping), the CPU list, and each `read` path;
   - read and write: /dev/null and /dev/zero (no ioctl), each `write` path (its container and
     app groups); /dev/urandom and /dev/random to read;
   - nothing else: no other device directory, no home, no cache, no terminal, no /tmp;
   - where the kernel has them, no TCP, no signal and no abstract unix socket outside itself;
   - no socket() of any family (UDP, raw and unix sockets too: no connect() to the machine's
     sockets by path, nor to another child's), no datagram socket pair, no io_uring, and no
     process_vm_readv/writev (a seccomp filter);
   - every `read` and `write` path is opened without following any symbolic link: the host
     resolved them when it checked them, and a link swapped in since fails the confinement.
   It also gets its own session (no controlling terminal), dies with its parent, dumps no
   core and gets `limits`. Returns 0, or -1 with the reason in `error`. */
int mamsim_confine(const char *const *read, int read_count, const char *const *write, int write_count,
                   const struct mamsim_limits *limits, char *error, size_t size);

/* For a process that only forks confined apps (the built-in runtime's template): opens the
   system's read paths, empties the capability bounding set, sets no_new_privs and installs the
   system call filter, once, so that every `mamsim_confine` in a process forked from it adds
   the inherited descriptors' rules and skips the rest. The caller itself runs under the filter
   and the empty bounding set from then on. Call it once, before forking; the descriptors are
   close-on-exec. Returns the number of paths opened. */
int mamsim_confine_prepare(void);

/* Closes what `mamsim_confine_prepare` opened (a forked process that does not confine itself
   calls it; `mamsim_confine` does it itself). Nothing to do where nothing was prepared. */
void mamsim_confine_release(void);

#endif
