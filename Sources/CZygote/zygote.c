#define _GNU_SOURCE
#include "CZygote.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef __linux__
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int mamsim_zygote_supported(void) { return 1; }

/* Request layout: 4 bytes of flags (host byte order: both ends are on one machine), then the
   arguments. Answer: a 4-byte pid, or a negative errno. */

static void send_answer(int control_fd, int32_t answer) {
    ssize_t n;
    do { n = send(control_fd, &answer, sizeof answer, MSG_NOSIGNAL); } while (n < 0 && errno == EINTR);
}

int mamsim_zygote_serve(int control_fd, char **arguments, size_t *length) {
    /* The template ends with the host even if the host cannot close the socket (killed). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(0);
    char *buffer = malloc(MAMSIM_ZYGOTE_MAX_REQUEST);
    if (!buffer) return -ENOMEM;
    for (;;) {
        union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
        struct iovec iov = { buffer, MAMSIM_ZYGOTE_MAX_REQUEST };
        struct msghdr msg = { 0 };
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.space;
        msg.msg_controllen = sizeof control.space;
        ssize_t n = recvmsg(control_fd, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(0); /* the host closed the socket: the template's work is done */
        int channel = -1;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
                memcpy(&channel, CMSG_DATA(c), sizeof(int));
        }
        /* A request is well formed or refused: one descriptor, flags, NUL-terminated text. */
        if (channel < 0 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || n < 4 || (n > 4 && buffer[n - 1] != '\0')) {
            if (channel >= 0) close(channel);
            send_answer(control_fd, -EINVAL);
            continue;
        }
        uint32_t flags;
        memcpy(&flags, buffer, 4);
        /* CLONE_PARENT: the app's parent is the host, not the template. Raw clone, like
           fork(2) without glibc's atfork handlers: the template is single-threaded and
           holds no lock here. */
        pid_t pid = (pid_t)syscall(SYS_clone, (unsigned long)(CLONE_PARENT | SIGCHLD), 0, 0, 0, 0);
        if (pid < 0) {
            int error = errno;
            close(channel);
            send_answer(control_fd, -error);
            continue;
        }
        if (pid > 0) {
            close(channel);
            send_answer(control_fd, pid);
            continue;
        }
        /* The new app. It does not outlive the host through the template's death signal. */
        prctl(PR_SET_PDEATHSIG, 0);
        /* Its own session: no controlling terminal, and its own process group. */
        setsid();
        if (dup2(channel, 3) < 0) _exit(126); /* replaces the control socket: the app cannot ask for forks */
        if (channel != 3) close(channel);
        if (flags & MAMSIM_ZYGOTE_QUIET) {
            int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
            if (null >= 0) { dup2(null, 1); dup2(null, 2); close(null); }
        }
        sigset_t empty;
        sigemptyset(&empty);
        sigprocmask(SIG_SETMASK, &empty, NULL);
        size_t size = (size_t)n - 4;
        char *copy = malloc(size ? size : 1);
        if (!copy) _exit(126);
        memcpy(copy, buffer + 4, size);
        free(buffer);
        *arguments = copy;
        *length = size;
        return 0;
    }
}

int mamsim_zygote_request(int control_fd, int channel_fd, unsigned flags, const char *arguments, size_t length) {
    if (length + 4 > MAMSIM_ZYGOTE_MAX_REQUEST) return -E2BIG;
    char *request = malloc(length + 4);
    if (!request) return -ENOMEM;
    uint32_t f = flags;
    memcpy(request, &f, 4);
    if (length) memcpy(request + 4, arguments, length);
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = { request, length + 4 };
    struct msghdr msg = { 0 };
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.space;
    msg.msg_controllen = sizeof control.space;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &channel_fd, sizeof(int));
    ssize_t sent;
    /* Never waits: a template whose socket is full is not keeping up, and the host's loop
       must not stall on it (the caller execs the app instead). */
    do { sent = sendmsg(control_fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT); } while (sent < 0 && errno == EINTR);
    int error = errno;
    free(request);
    return sent < 0 ? -error : 0;
}

int mamsim_zygote_answer(int control_fd, int32_t *answer) {
    int32_t value = 0;
    ssize_t n;
    do { n = recv(control_fd, &value, sizeof value, MSG_DONTWAIT); } while (n < 0 && errno == EINTR);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
    if (n == 0) return -EPIPE; /* the template closed its end */
    if (n != sizeof value || value == 0) return -EPROTO;
    *answer = value;
    return 1;
}

#else

int mamsim_zygote_supported(void) { return 0; }
int mamsim_zygote_serve(int control_fd, char **arguments, size_t *length) {
    (void)control_fd; (void)arguments; (void)length;
    return -ENOSYS;
}
int mamsim_zygote_request(int control_fd, int channel_fd, unsigned flags, const char *arguments, size_t length) {
    (void)control_fd; (void)channel_fd; (void)flags; (void)arguments; (void)length;
    return -ENOSYS;
}
int mamsim_zygote_answer(int control_fd, int32_t *answer) {
    (void)control_fd; (void)answer;
    return -ENOSYS;
}

#endif
