/* A minimal collector for benchmarks: accepts SOCK_SEQPACKET connections on a path and discards
 * what arrives, counting packets and bytes. It separates the interposer's own cost from the Java
 * collector's (which competes for the same cores). Usage: sink SOCKET_PATH (stops on SIGTERM). */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: sink SOCKET_PATH\n");
        return 2;
    }
    signal(SIGTERM, on_term);
    int ls = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", argv[1]);
    unlink(argv[1]);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 64) != 0) {
        perror(argv[1]);
        return 1;
    }
    static char buf[4 << 20];
    struct pollfd fds[65] = {{.fd = ls, .events = POLLIN}};
    int n = 1;
    unsigned long long packets = 0, bytes = 0;
    while (!stop) {
        if (poll(fds, (nfds_t)n, 100) <= 0) continue;
        if ((fds[0].revents & POLLIN) && n < 65) fds[n++] = (struct pollfd){.fd = accept(ls, NULL, NULL), .events = POLLIN};
        for (int i = 1; i < n; i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
            ssize_t r = recv(fds[i].fd, buf, sizeof buf, 0);
            if (r <= 0) {
                close(fds[i].fd);
                fds[i--] = fds[--n];
                continue;
            }
            packets++;
            bytes += (unsigned long long)r;
        }
    }
    fprintf(stderr, "sink: %llu packets, %llu bytes\n", packets, bytes);
    return 0;
}
