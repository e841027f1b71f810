/*
 * mamsim-ref.c — minimal C libuv reference for the mamsim benchmark.
 *
 * One binary, two roles (libuv-test style):
 *   parent:  mamsim-ref [--pin CPU] latency SIZE COUNT
 *            mamsim-ref [--pin CPU] broker  SIZE COUNT [ACK_EVERY [BATCH]]
 *            mamsim-ref [--pin CPU] fleet   N
 *   child:   mamsim-ref --child echo | sender SIZE COUNT [BATCH] | sink COUNT [ACK_EVERY] | hello
 *            (started by the parent; talks on fd 3, a UV_CREATE_PIPE socketpair)
 *
 * Framing (same as mamsim): 4-byte big-endian length N, then N payload bytes.
 * No enforcement beyond a maximum frame size; one uv_write per frame, unless a broker BATCH
 * above 1 is given: then the sender writes BATCH frames per uv_write and the parent forwards
 * the frames of each read in one uv_write (what batching can win on this machine, with no
 * work per item).
 *
 * Control frames start with one tag byte:
 *   'H' hello (child -> parent, first frame of every child)
 *   'G' go    (parent -> broker sender A)
 *   'A' ack   (sink B -> parent -> sender A), followed by 8-byte BE cumulative count
 *   'D' done  (sink B -> parent), B has received COUNT data frames
 * Data frames (latency pings, broker payload) are SIZE bytes of 'x'.
 * Teardown: the parent closes its end of a child's pipe; the child sees EOF,
 * closes its pipe and exits 0 (a 'B' bye frame is also honoured).
 *
 * Build: cc -O2 -o mamsim-ref mamsim-ref.c $(pkg-config --cflags --libs libuv)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#ifdef __linux__
#include <sys/socket.h>
#endif

#define MAX_FRAME (64u * 1024u * 1024u) /* decoder rejects larger frames */
#define READ_CHUNK 65536                /* min free space offered to uv_read */
#define BROKER_WINDOW 256               /* max data frames sent by A and not yet acked */
#define BROKER_ACK_EVERY 64             /* by default B acks every 64 data frames */
#define CHANNEL_SEND_BUFFER (96 * 1024) /* SO_SNDBUF of each end, as mamsim pins its own */

#define CHECK(expr)                                                              \
  do {                                                                           \
    int r_ = (expr);                                                             \
    if (r_ < 0) {                                                                \
      fprintf(stderr, "mamsim-ref: %s:%d %s: %s\n", __FILE__, __LINE__, #expr,   \
              uv_strerror(r_));                                                  \
      exit(2);                                                                   \
    }                                                                            \
  } while (0)

/* What each end of a channel may hold unread, the same as mamsim's (System.socketPair), not
 * the machine's default (net.core.wmem_default): the two relays queue the same bytes. */
static void pin_send_buffer(uv_stream_t *stream) {
#ifdef __linux__
  uv_os_fd_t fd;
  if (uv_fileno((uv_handle_t *)stream, &fd) == 0) {
    int size = CHANNEL_SEND_BUFFER;
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  }
#else
  (void)stream;
#endif
}

static uv_loop_t *loop;

static void die(const char *msg) {
  fprintf(stderr, "mamsim-ref: %s\n", msg);
  exit(2);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

/* ------------------------------------------------------------------ */
/* Connection: a uv_pipe_t + incremental frame decoder + pending-write count. */

typedef struct conn conn_t;
typedef void (*frame_cb)(conn_t *c, const uint8_t *p, uint32_t n);
typedef void (*conn_close_cb)(conn_t *c);

struct conn {
  uv_pipe_t pipe;       /* first member: (uv_handle_t*)&c->pipe == c */
  uint8_t *buf;         /* accumulated bytes not yet consumed */
  size_t len, cap;
  frame_cb on_frame;
  conn_close_cb on_closed; /* called from the uv_close callback */
  int pending_writes;
  void *owner;
  int closing;
  /* Gathered frames (broker BATCH > 1), written by conn_flush in one uv_write. */
  uint8_t *out;
  size_t out_len, out_cap;
  void (*after_read)(conn_t *c); /* after every frame of a read was delivered */
};

static void conn_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *b) {
  conn_t *c = (conn_t *)h;
  (void)suggested;
  if (c->cap - c->len < READ_CHUNK) {
    size_t ncap = c->cap ? c->cap : READ_CHUNK;
    while (ncap - c->len < READ_CHUNK) ncap *= 2;
    uint8_t *nb = realloc(c->buf, ncap);
    if (!nb) die("out of memory");
    c->buf = nb;
    c->cap = ncap;
  }
  *b = uv_buf_init((char *)c->buf + c->len, (unsigned)(c->cap - c->len));
}

static void conn_handle_closed(uv_handle_t *h) {
  conn_t *c = (conn_t *)h;
  free(c->buf);
  c->buf = NULL;
  c->len = c->cap = 0;
  free(c->out);
  c->out = NULL;
  c->out_len = c->out_cap = 0;
  if (c->on_closed) c->on_closed(c);
}

static void conn_close(conn_t *c) {
  if (c->closing) return;
  c->closing = 1;
  if (!uv_is_closing((uv_handle_t *)&c->pipe)) uv_close((uv_handle_t *)&c->pipe, conn_handle_closed);
}

static void conn_read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *b) {
  conn_t *c = (conn_t *)s;
  (void)b;
  if (nread < 0) {
    if (nread != UV_EOF) fprintf(stderr, "mamsim-ref: read: %s\n", uv_strerror((int)nread));
    conn_close(c);
    return;
  }
  c->len += (size_t)nread;
  size_t off = 0;
  /* Deliver every complete frame; a callback may close the conn (stop then). */
  while (!c->closing && c->len - off >= 4) {
    const uint8_t *h = c->buf + off;
    uint32_t n = ((uint32_t)h[0] << 24) | ((uint32_t)h[1] << 16) | ((uint32_t)h[2] << 8) | h[3];
    if (n > MAX_FRAME) {
      fprintf(stderr, "mamsim-ref: frame of %u bytes exceeds max %u; closing\n", n, MAX_FRAME);
      conn_close(c);
      return;
    }
    if (c->len - off - 4 < n) break; /* partial frame: wait for more */
    c->on_frame(c, h + 4, n);
    off += 4 + (size_t)n;
  }
  if (c->closing) return;
  if (off) {
    memmove(c->buf, c->buf + off, c->len - off);
    c->len -= off;
  }
  if (c->after_read) c->after_read(c);
}

typedef struct {
  uv_write_t req;
  conn_t *conn;
  uint8_t data[]; /* 4-byte header + payload, freed in the write callback */
} wreq_t;

static void conn_write_cb(uv_write_t *req, int status) {
  wreq_t *w = (wreq_t *)req;
  w->conn->pending_writes--;
  if (status < 0 && status != UV_ECANCELED && status != UV_EPIPE)
    fprintf(stderr, "mamsim-ref: write: %s\n", uv_strerror(status));
  free(w);
}

static void put_be32(uint8_t *p, uint32_t n) {
  p[0] = (uint8_t)(n >> 24);
  p[1] = (uint8_t)(n >> 16);
  p[2] = (uint8_t)(n >> 8);
  p[3] = (uint8_t)n;
}

/* Hands w (its LEN bytes of data filled in) to one uv_write; it is freed in the callback. */
static void conn_write(conn_t *c, wreq_t *w, size_t len) {
  w->conn = c;
  uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)len);
  int r = uv_write(&w->req, (uv_stream_t *)&c->pipe, &buf, 1, conn_write_cb);
  if (r < 0) {
    fprintf(stderr, "mamsim-ref: uv_write: %s\n", uv_strerror(r));
    free(w);
    return;
  }
  c->pending_writes++;
}

/* Send one frame: header + (tag?) + payload, one allocation, one uv_write. */
static void conn_send2(conn_t *c, const void *a, uint32_t na, const void *b, uint32_t nb) {
  if (c->closing) return;
  uint32_t n = na + nb;
  wreq_t *w = xmalloc(sizeof(wreq_t) + 4 + (size_t)n);
  put_be32(w->data, n);
  if (na) memcpy(w->data + 4, a, na);
  if (nb) memcpy(w->data + 4 + na, b, nb);
  conn_write(c, w, 4 + (size_t)n);
}

static void conn_send(conn_t *c, const void *p, uint32_t n) { conn_send2(c, p, n, NULL, 0); }

/* Gathers one frame for the next conn_flush. */
static void conn_queue(conn_t *c, const void *p, uint32_t n) {
  if (c->closing) return;
  if (c->out_cap - c->out_len < 4 + (size_t)n) {
    size_t ncap = c->out_cap ? c->out_cap : 65536;
    while (ncap - c->out_len < 4 + (size_t)n) ncap *= 2;
    uint8_t *nb = realloc(c->out, ncap);
    if (!nb) die("out of memory");
    c->out = nb;
    c->out_cap = ncap;
  }
  put_be32(c->out + c->out_len, n);
  memcpy(c->out + c->out_len + 4, p, n);
  c->out_len += 4 + (size_t)n;
}

/* Writes the gathered frames in one uv_write (one allocation, as conn_send). */
static void conn_flush(conn_t *c) {
  if (c->closing || c->out_len == 0) return;
  wreq_t *w = xmalloc(sizeof(wreq_t) + c->out_len);
  memcpy(w->data, c->out, c->out_len);
  size_t len = c->out_len;
  c->out_len = 0;
  conn_write(c, w, len);
}

static void put_be64(uint8_t *p, uint64_t v) {
  for (int i = 7; i >= 0; i--) { p[i] = (uint8_t)v; v >>= 8; }
}
static uint64_t get_be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return v;
}

static unsigned long parse_num(const char *s, const char *what) {
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (!*s || *end) {
    fprintf(stderr, "mamsim-ref: bad %s: %s\n", what, s);
    exit(2);
  }
  return v;
}

/* ------------------------------------------------------------------ */
/* Child side. */

static conn_t child_conn;
static uint8_t *child_payload; /* sender: SIZE bytes of 'x' */
static uint32_t child_size;
static uint64_t child_count, child_sent, child_acked, child_recv;
/* How often the sink acknowledges: every 64th frame by default, every frame (1) for the
   per-write reference, where each item is answered as mamsim answers each share. */
static uint64_t ack_every = BROKER_ACK_EVERY;
/* Broker frames per uv_write (sender and parent); 1 = one write per frame. */
static uint64_t batch = 1;

static void child_closed(conn_t *c) { (void)c; }

static void echo_frame(conn_t *c, const uint8_t *p, uint32_t n) {
  if (n == 1 && p[0] == 'B') { conn_close(c); return; }
  conn_send(c, p, n);
}

static void sender_fill(conn_t *c) {
  uint64_t gathered = 0;
  while (child_sent < child_count && child_sent - child_acked < BROKER_WINDOW) {
    if (batch > 1) {
      conn_queue(c, child_payload, child_size);
      if (++gathered % batch == 0) conn_flush(c);
    } else {
      conn_send(c, child_payload, child_size);
    }
    child_sent++;
  }
  conn_flush(c);
}

static void sender_frame(conn_t *c, const uint8_t *p, uint32_t n) {
  if (n == 1 && p[0] == 'G') { sender_fill(c); return; }
  if (n == 9 && p[0] == 'A') { child_acked = get_be64(p + 1); sender_fill(c); return; }
  if (n == 1 && p[0] == 'B') { conn_close(c); return; }
}

static void sink_frame(conn_t *c, const uint8_t *p, uint32_t n) {
  if (n == 1 && p[0] == 'B') { conn_close(c); return; }
  child_recv++;
  if (child_recv == child_count) {
    uint8_t d = 'D';
    conn_send(c, &d, 1);
  } else if (child_recv % ack_every == 0) {
    uint8_t a[9];
    a[0] = 'A';
    put_be64(a + 1, child_recv);
    conn_send(c, a, 9);
  }
}

static void hello_frame(conn_t *c, const uint8_t *p, uint32_t n) {
  if (n == 1 && p[0] == 'B') conn_close(c);
}

static int child_main(int argc, char **argv) {
  /* argv: --child ROLE [args] */
  if (argc < 3) die("usage: --child echo|sender SIZE COUNT|sink COUNT|hello");
  if (uv_guess_handle(3) != UV_NAMED_PIPE) die("fd 3 is not a pipe: not started by a mamsim host");
  const char *role = argv[2];
  frame_cb cb;
  if (!strcmp(role, "echo")) cb = echo_frame;
  else if (!strcmp(role, "sender") && (argc == 5 || argc == 6)) {
    cb = sender_frame;
    child_size = (uint32_t)parse_num(argv[3], "SIZE");
    child_count = parse_num(argv[4], "COUNT");
    if (argc == 6) batch = parse_num(argv[5], "BATCH");
    if (batch == 0) die("BATCH must be > 0");
    child_payload = xmalloc(child_size);
    memset(child_payload, 'x', child_size);
  } else if (!strcmp(role, "sink") && (argc == 4 || argc == 5)) {
    cb = sink_frame;
    child_count = parse_num(argv[3], "COUNT");
    if (argc == 5) ack_every = parse_num(argv[4], "ACK_EVERY");
    if (ack_every == 0) die("ACK_EVERY must be > 0");
  } else if (!strcmp(role, "hello")) cb = hello_frame;
  else die("unknown child role");

  memset(&child_conn, 0, sizeof child_conn);
  child_conn.on_frame = cb;
  child_conn.on_closed = child_closed;
  CHECK(uv_pipe_init(loop, &child_conn.pipe, 0));
  CHECK(uv_pipe_open(&child_conn.pipe, 3));
  pin_send_buffer((uv_stream_t *)&child_conn.pipe);
  CHECK(uv_read_start((uv_stream_t *)&child_conn.pipe, conn_alloc_cb, conn_read_cb));
  uint8_t h = 'H';
  conn_send(&child_conn, &h, 1);
  uv_run(loop, UV_RUN_DEFAULT);
  free(child_payload);
  free(child_conn.out);
  int r = uv_loop_close(loop);
  if (r != 0) { fprintf(stderr, "mamsim-ref child: uv_loop_close: %s\n", uv_strerror(r)); return 1; }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Parent side. */

typedef struct child {
  conn_t conn;          /* first member */
  uv_process_t proc;
  int idx;
  int handles_open;     /* freed when both pipe and process handles are closed */
  int exited;
  int helloed;
  int64_t exit_status;
  int term_signal;
} child_t;

static char exe_path[4096];
static int children_alive;   /* child_t structs not yet freed */
static int exit_failures;

static void child_maybe_free(child_t *ch) {
  if (--ch->handles_open == 0) {
    free(ch);
    children_alive--;
  }
}

static void child_pipe_closed(conn_t *c) { child_maybe_free((child_t *)c); }

static void child_proc_closed(uv_handle_t *h) {
  child_t *ch = h->data;
  child_maybe_free(ch);
}

static void child_exit_cb(uv_process_t *p, int64_t status, int sig) {
  child_t *ch = p->data;
  ch->exited = 1;
  ch->exit_status = status;
  ch->term_signal = sig;
  if (status != 0 || sig != 0) {
    fprintf(stderr, "mamsim-ref: child %d (pid %d) exited status=%lld signal=%d\n", ch->idx,
            p->pid, (long long)status, sig);
    exit_failures++;
  }
  uv_close((uv_handle_t *)p, child_proc_closed);
  conn_close(&ch->conn); /* in case it is still open */
}

static child_t *spawn_child(int idx, frame_cb on_frame, char **args) {
  child_t *ch = xmalloc(sizeof *ch);
  memset(ch, 0, sizeof *ch);
  ch->idx = idx;
  ch->conn.on_frame = on_frame;
  ch->conn.on_closed = child_pipe_closed;
  ch->conn.owner = ch;
  ch->proc.data = ch;
  ch->handles_open = 2;
  children_alive++;
  CHECK(uv_pipe_init(loop, &ch->conn.pipe, 0));

  uv_stdio_container_t stdio[4];
  stdio[0].flags = UV_IGNORE;
  stdio[1].flags = UV_IGNORE;
  stdio[2].flags = UV_INHERIT_FD;
  stdio[2].data.fd = 2;
  stdio[3].flags = UV_CREATE_PIPE | UV_READABLE_PIPE | UV_WRITABLE_PIPE;
  stdio[3].data.stream = (uv_stream_t *)&ch->conn.pipe;

  uv_process_options_t opt;
  memset(&opt, 0, sizeof opt);
  opt.file = exe_path;
  opt.args = args;
  opt.exit_cb = child_exit_cb;
  opt.stdio = stdio;
  opt.stdio_count = 4;

  int r = uv_spawn(loop, &ch->proc, &opt);
  if (r < 0) {
    fprintf(stderr, "mamsim-ref: uv_spawn: %s\n", uv_strerror(r));
    uv_close((uv_handle_t *)&ch->proc, child_proc_closed); /* a failed spawn still needs uv_close */
    conn_close(&ch->conn);
    exit_failures++;
    return NULL;
  }
  pin_send_buffer((uv_stream_t *)&ch->conn.pipe);
  CHECK(uv_read_start((uv_stream_t *)&ch->conn.pipe, conn_alloc_cb, conn_read_cb));
  return ch;
}

static int finish_parent(void) {
  uv_run(loop, UV_RUN_DEFAULT); /* runs until every child exited and every handle closed */
  int r = uv_loop_close(loop);
  if (r != 0) {
    fprintf(stderr, "mamsim-ref: uv_loop_close: %s\n", uv_strerror(r));
    return 1;
  }
  if (children_alive != 0) {
    fprintf(stderr, "mamsim-ref: %d child records not freed\n", children_alive);
    return 1;
  }
  return exit_failures ? 1 : 0;
}

/* ---- latency ---- */
static child_t *lat_child;
static uint8_t *lat_payload;
static uint32_t lat_size;
static uint64_t lat_count, lat_done, lat_t0;
static uint64_t *lat_samples;

static void lat_send(void) {
  lat_t0 = uv_hrtime();
  conn_send(&lat_child->conn, lat_payload, lat_size);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* nearest-rank percentile */
static uint64_t pct(const uint64_t *s, uint64_t n, double q) {
  uint64_t k = (uint64_t)(q * (double)n + 0.999999999);
  if (k < 1) k = 1;
  if (k > n) k = n;
  return s[k - 1];
}

static void lat_frame(conn_t *c, const uint8_t *p, uint32_t n) {
  child_t *ch = (child_t *)c;
  if (!ch->helloed) {
    if (n == 1 && p[0] == 'H') { ch->helloed = 1; if (lat_count) lat_send(); else conn_close(c); }
    return;
  }
  uint64_t t1 = uv_hrtime();
  if (n != lat_size) { fprintf(stderr, "mamsim-ref: echo size %u != %u\n", n, lat_size); exit(2); }
  lat_samples[lat_done++] = t1 - lat_t0;
  if (lat_done < lat_count) { lat_send(); return; }
  qsort(lat_samples, lat_count, sizeof(uint64_t), cmp_u64);
  printf("latency size=%u count=%llu p50_us=%.1f p99_us=%.1f\n", lat_size, (unsigned long long)lat_count,
         pct(lat_samples, lat_count, 0.50) / 1e3, pct(lat_samples, lat_count, 0.99) / 1e3);
  fflush(stdout);
  conn_close(c); /* child sees EOF and exits */
}

static int run_latency(uint32_t size, uint64_t count) {
  lat_size = size;
  lat_count = count;
  lat_payload = xmalloc(size);
  memset(lat_payload, 'x', size);
  lat_samples = xmalloc(sizeof(uint64_t) * (count ? count : 1));
  char *args[] = {exe_path, "--child", "echo", NULL};
  lat_child = spawn_child(0, lat_frame, args);
  int rc = finish_parent();
  if (lat_done != lat_count) { fprintf(stderr, "mamsim-ref: latency incomplete %llu/%llu\n", (unsigned long long)lat_done, (unsigned long long)lat_count); rc = 1; }
  free(lat_payload);
  free(lat_samples);
  return rc;
}

/* ---- broker ---- */
static child_t *brk_a, *brk_b;
static int brk_hellos, brk_finished;
static uint32_t brk_size;
static uint64_t brk_count, brk_fwd, brk_t0;

static void brk_hello(child_t *ch) {
  ch->helloed = 1;
  if (++brk_hellos == 2) {
    uint8_t g = 'G';
    brk_t0 = uv_hrtime();
    conn_send(&brk_a->conn, &g, 1);
  }
}

static void brk_a_frame(conn_t *c, const uint8_t *p, uint32_t n) {
  child_t *ch = (child_t *)c;
  if (!ch->helloed) { if (n == 1 && p[0] == 'H') brk_hello(ch); return; }
  brk_fwd++;
  /* forward: copy into one allocation, one uv_write (or gathered, one write per read) */
  if (batch > 1) conn_queue(&brk_b->conn, p, n);
  else conn_send(&brk_b->conn, p, n);
}

static void brk_a_read(conn_t *c) {
  (void)c;
  if (brk_b && !brk_finished) conn_flush(&brk_b->conn);
}

static void brk_b_frame(conn_t *c, const uint8_t *p, uint32_t n) {
  child_t *ch = (child_t *)c;
  if (!ch->helloed) { if (n == 1 && p[0] == 'H') brk_hello(ch); return; }
  if (n == 9 && p[0] == 'A') { conn_send(&brk_a->conn, p, n); return; }
  if (n == 1 && p[0] == 'D') {
    double s = (uv_hrtime() - brk_t0) / 1e9;
    printf("broker size=%u count=%llu ack_every=%llu batch=%llu items_per_s=%.0f seconds=%.3f\n", brk_size,
           (unsigned long long)brk_count, (unsigned long long)ack_every, (unsigned long long)batch, brk_count / s, s);
    fflush(stdout);
    brk_finished = 1;
    conn_close(&brk_a->conn);
    conn_close(&brk_b->conn);
  }
}

static int run_broker(uint32_t size, uint64_t count, uint64_t every, uint64_t frames_per_write) {
  if (count == 0) die("broker COUNT must be > 0");
  if (every == 0) die("broker ACK_EVERY must be > 0");
  if (frames_per_write == 0) die("broker BATCH must be > 0");
  brk_size = size;
  brk_count = count;
  ack_every = every;
  batch = frames_per_write;
  char sz[32], cnt[32], ack[32], bat[32];
  snprintf(sz, sizeof sz, "%u", size);
  snprintf(cnt, sizeof cnt, "%llu", (unsigned long long)count);
  snprintf(ack, sizeof ack, "%llu", (unsigned long long)every);
  snprintf(bat, sizeof bat, "%llu", (unsigned long long)frames_per_write);
  char *args_a[] = {exe_path, "--child", "sender", sz, cnt, bat, NULL};
  char *args_b[] = {exe_path, "--child", "sink", cnt, ack, NULL};
  brk_a = spawn_child(0, brk_a_frame, args_a);
  brk_b = spawn_child(1, brk_b_frame, args_b);
  if (brk_a) brk_a->conn.after_read = brk_a_read;
  if (!brk_a || !brk_b) {
    if (brk_a) conn_close(&brk_a->conn);
    if (brk_b) conn_close(&brk_b->conn);
  }
  int rc = finish_parent();
  if (!brk_finished) { fprintf(stderr, "mamsim-ref: broker incomplete (forwarded %llu)\n", (unsigned long long)brk_fwd); rc = 1; }
  return rc;
}

/* ---- fleet ---- */
static child_t **fleet;
static int fleet_n, fleet_hellos, fleet_finished;
static uint64_t fleet_t0;

/* Value in kB of a "Key:" line in /proc/PID/status, or -1. */
static long proc_status_kb(int pid, const char *key) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long v = -1;
  size_t kl = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, key, kl) && line[kl] == ':') { v = strtol(line + kl + 1, NULL, 10); break; }
  }
  fclose(f);
  return v;
}

static void fleet_frame(conn_t *c, const uint8_t *p, uint32_t n) {
  child_t *ch = (child_t *)c;
  if (ch->helloed || n != 1 || p[0] != 'H') return;
  ch->helloed = 1;
  if (++fleet_hellos < fleet_n) return;
  double s = (uv_hrtime() - fleet_t0) / 1e9;
  double rss_sum = 0, hwm_sum = 0;
  int got = 0;
  for (int i = 0; i < fleet_n; i++) {
    long rss = proc_status_kb(fleet[i]->proc.pid, "VmRSS");
    long hwm = proc_status_kb(fleet[i]->proc.pid, "VmHWM");
    if (rss >= 0) { rss_sum += rss; hwm_sum += hwm; got++; }
  }
  double mib = got ? rss_sum / got / 1024.0 : 0;
  printf("fleet n=%d seconds=%.3f rss_per_app_mib=%.2f\n", fleet_n, s, mib);
  fflush(stdout);
  if (getenv("MAMSIM_REF_VERBOSE"))
    fprintf(stderr, "fleet: sampled %d/%d children, mean VmHWM %.2f MiB\n", got, fleet_n,
            got ? hwm_sum / got / 1024.0 : 0);
  fleet_finished = 1;
  for (int i = 0; i < fleet_n; i++) conn_close(&fleet[i]->conn); /* EOF -> child exits */
}

static int run_fleet(int n) {
  if (n <= 0) die("fleet N must be > 0");
  fleet_n = n;
  fleet = xmalloc(sizeof(child_t *) * (size_t)n);
  char *args[] = {exe_path, "--child", "hello", NULL};
  fleet_t0 = uv_hrtime();
  int failed = 0;
  for (int i = 0; i < n; i++) {
    fleet[i] = spawn_child(i, fleet_frame, args);
    if (!fleet[i]) { failed = 1; break; }
  }
  if (failed)
    for (int i = 0; i < n && fleet[i]; i++) conn_close(&fleet[i]->conn);
  int rc = finish_parent();
  if (!fleet_finished) { fprintf(stderr, "mamsim-ref: fleet incomplete (%d/%d hellos)\n", fleet_hellos, n); rc = 1; }
  free(fleet);
  return rc;
}

static void usage(void) {
  fprintf(stderr,
          "usage: mamsim-ref [--pin CPU] latency SIZE COUNT\n"
          "       mamsim-ref [--pin CPU] broker SIZE COUNT [ACK_EVERY [BATCH]]\n"
          "       mamsim-ref [--pin CPU] fleet N\n");
  exit(2);
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  loop = uv_default_loop();
  if (argc >= 2 && !strcmp(argv[1], "--child")) return child_main(argc, argv);

  size_t len = sizeof exe_path;
  CHECK(uv_exepath(exe_path, &len));

  int ai = 1;
  if (ai + 1 < argc && !strcmp(argv[ai], "--pin")) {
    int cpu = (int)parse_num(argv[ai + 1], "CPU");
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) { perror("sched_setaffinity"); return 2; }
    ai += 2;
  }
  if (ai >= argc) usage();
  const char *mode = argv[ai];
  int rest = argc - ai - 1;
  char **a = argv + ai + 1;
  if (!strcmp(mode, "latency") && rest == 2)
    return run_latency((uint32_t)parse_num(a[0], "SIZE"), parse_num(a[1], "COUNT"));
  if (!strcmp(mode, "broker") && (rest >= 2 && rest <= 4))
    return run_broker((uint32_t)parse_num(a[0], "SIZE"), parse_num(a[1], "COUNT"), rest >= 3 ? parse_num(a[2], "ACK_EVERY") : BROKER_ACK_EVERY,
                      rest == 4 ? parse_num(a[3], "BATCH") : 1);
  if (!strcmp(mode, "fleet") && rest == 1) return run_fleet((int)parse_num(a[0], "N"));
  usage();
  return 2;
}
