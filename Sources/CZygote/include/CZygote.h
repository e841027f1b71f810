#ifndef MAMSIM_CZYGOTE_H
#define MAMSIM_CZYGOTE_H
#include <stddef.h>
#include <stdint.h>
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

/* Host side, in two halves so the host's loop never waits on the template. A request asks
   the template behind `control_fd` for a new app with `channel_fd` as its fd 3 and
   `arguments` (`length` bytes, NUL-terminated strings); it is sent without blocking: 0, or a
   negative errno (-EAGAIN: the template's socket is full). The template answers requests in
   order. An answer read without blocking: 1 with `*answer` the new pid, or the template's
   negative fork error; 0 when no answer is waiting; a negative errno when the template is
   gone (-EPIPE) or broke the protocol (-EPROTO). */
int mamsim_zygote_request(int control_fd, int channel_fd, unsigned flags, const char *arguments, size_t length);
int mamsim_zygote_answer(int control_fd, int32_t *answer);

/* The largest request a template accepts (arguments included). */
#define MAMSIM_ZYGOTE_MAX_REQUEST 65536

#endif
