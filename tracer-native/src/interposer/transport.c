/* The connection to `apptrace run`: one SOCK_SEQPACKET UNIX socket per process, one Batch per
 * packet. A packet is delivered whole or not at all, so threads send without a shared lock.
 *
 * When the collector goes away (killed, socket closed), the first failed send switches tracing
 * off for good, says so once on stderr, and the program runs on untouched: sends never raise
 * SIGPIPE (MSG_NOSIGNAL) and never retry a dead socket.
 *
 * The first packet also carries the descriptor of the process's shared buffer region
 * (SCM_RIGHTS), which the collector reads when the connection closes (record.h). */
#include "record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static int sock_fd = -1;
uint32_t at_flush_bytes = 32 * 1024;
static _Atomic uint64_t lost_packets, lost_bytes;
static _Atomic bool lost_reported;
static _Atomic int pass_fd = -1; /* to send with the next packet, then close */

static void report_loss(int err) {
    bool expected = false;
    if (atomic_compare_exchange_strong(&lost_reported, &expected, true)) {
        at_warn("lost the connection to the collector (", strerrordesc_np(err),
                "); tracing stops here, the program continues", NULL);
    }
}

bool at_transport_connect(void) {
    const char *path = getenv("APPTRACE_SOCKET");
    if (path == NULL || path[0] == '\0') return false;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) {
        at_warn("APPTRACE_SOCKET is longer than a socket path may be: ", path, "; not tracing", NULL);
        return false;
    }
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int err = errno;
        close(fd);
        at_warn("cannot reach the collector at ", path, " (", strerrordesc_np(err), "); not tracing", NULL);
        return false;
    }
    /* A packet must fit in the send buffer (sk_sndbuf less a little overhead). Ask for plenty; the
     * kernel caps it at 2 * wmem_max (425,984 bytes by default); size packets to what we got. */
    int sndbuf = 4 << 20;
    socklen_t len = sizeof sndbuf;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) == 0) {
        int64_t room = (int64_t)sndbuf - (AT_BUF_CAP - AT_FLUSH_BYTES) - 4096;
        if (room > AT_FLUSH_BYTES) room = AT_FLUSH_BYTES;
        if (room < 16 * 1024) room = 16 * 1024;
        at_flush_bytes = (uint32_t)room;
    }
    sock_fd = fd;
    return true;
}

bool at_transport_send(const uint8_t *head, uint32_t head_len, const uint8_t *body, uint32_t body_len) {
    if (sock_fd < 0 || !atomic_load_explicit(&at_active, memory_order_relaxed)) {
        atomic_fetch_add(&lost_packets, 1);
        atomic_fetch_add(&lost_bytes, head_len + body_len);
        return false;
    }
    struct iovec iov[2] = {{(void *)head, head_len}, {(void *)body, body_len}};
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    int fd = atomic_load_explicit(&pass_fd, memory_order_relaxed) < 0 ? -1 : atomic_exchange(&pass_fd, -1);
    if (fd >= 0) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    for (;;) {
        ssize_t r = sendmsg(sock_fd, &msg, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR) continue;
        int err = errno;
        if (fd >= 0) close(fd); /* a packet in flight holds its own reference */
        if (r >= 0) return true;
        atomic_store(&at_active, false);
        atomic_fetch_add(&lost_packets, 1);
        atomic_fetch_add(&lost_bytes, head_len + body_len);
        report_loss(err);
        return false;
    }
}

void at_transport_pass_fd(int fd) {
    int old = atomic_exchange(&pass_fd, sock_fd >= 0 ? fd : -1);
    if (old >= 0) close(old);
    if (sock_fd < 0 && fd >= 0) close(fd);
}

void at_transport_after_fork(void) {
    /* The inherited descriptor is the parent's connection: writing to it would mix the two
     * processes' packets. The child gets its own. */
    if (sock_fd >= 0) close(sock_fd);
    sock_fd = -1;
    atomic_store(&lost_reported, false);
    if (!at_transport_connect()) atomic_store(&at_active, false);
}

uint64_t at_transport_dropped(void) {
    return atomic_load(&lost_packets);
}
