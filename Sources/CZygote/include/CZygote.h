#ifndef MAMSIM_CZYGOTE_H
#define MAMSIM_CZYGOTE_H
#include <stddef.h>
#include <sys/types.h>

/* The app-process zygote: a pre-initialised mamsim-app template that the host asks, over a
   SOCK_SEQPACKET control socket, to fork new apps. A request carries the new app's channel
   (one descriptor, SCM_RIGHTS) and its arguments; the template answers with the new pid.
   Linux only: the new app is cloned with CLONE_PARENT, so it is the host's child like any
   exec'd app (the host reaps it, signals its group, sees its crash). */

/* Flag: the new app's stdout and stderr go to /dev/null. */
#define MAMSIM_ZYGOTE_QUIET 1u

/* 1 where the zygote can run (Linux), 0 elsewhere. */
int mamsim_zygote_supported(void);

/* Template side. Serves requests on `control_fd` until the host closes it (then exits the
   process with status 0). Returns only in a new app: 0, with `*arguments` a malloc'd buffer
   of `*length` bytes holding the app's arguments, each NUL-terminated; the channel is fd 3,
   the app leads its own session and process group and its signal mask is empty. */
int mamsim_zygote_serve(int control_fd, char **arguments, size_t *length);

/* Host side. Asks the template behind `control_fd` for a new app with `channel_fd` as its
   fd 3 and `arguments` (`length` bytes, NUL-terminated strings). Waits at most
   `timeout_ms` for the answer. Returns the new pid, or a negative errno (-EPIPE: the
   template is gone; -ETIMEDOUT; or the template's own fork error). */
pid_t mamsim_zygote_fork(int control_fd, int channel_fd, unsigned flags,
                         const char *arguments, size_t length, int timeout_ms);

/* The largest request a template accepts (arguments included). */
#define MAMSIM_ZYGOTE_MAX_REQUEST 65536

#endif
