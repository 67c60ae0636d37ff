/* Two roles for the security tests (CaptureSecurityTest):
 *   peer hold FILE GO    the traced program: writes its APPTRACE_SOCKET to FILE, then waits
 *                        until GO exists
 *   peer send SOCKET     another user's process: connects to SOCKET and sends a forged Batch (pid
 *                        4242, one Note "injected"); prints "connected" or "refused: <reason>"
 *                        and whether the packet went out */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int hold(const char *file, const char *go) {
    const char *socket = getenv("APPTRACE_SOCKET");
    FILE *f = fopen(file, "w");
    if (f == NULL || socket == NULL) return 2;
    fprintf(f, "%s\n", socket);
    fclose(f);
    struct timespec pause = {.tv_nsec = 10 * 1000 * 1000};
    for (int i = 0; i < 6000 && access(go, F_OK) != 0; i++) nanosleep(&pause, NULL);
    return 0;
}

static int send_forged(const char *path) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        printf("refused: %s\n", strerror(errno));
        return 1;
    }
    /* Batch{pid: 4242, tid: 1, events: [Event{note (field 34): Note{text: "injected"}}]} */
    static const unsigned char text[] = "injected";
    unsigned char note[2 + sizeof text - 1], event[3 + sizeof note], batch[64];
    size_t n = 0;
    note[0] = 0x0a, note[1] = sizeof text - 1;
    memcpy(note + 2, text, sizeof text - 1);
    event[0] = 0x92, event[1] = 0x02, event[2] = sizeof note; /* field 34, length-delimited */
    memcpy(event + 3, note, sizeof note);
    batch[n++] = 0x08, batch[n++] = 0x92, batch[n++] = 0x21; /* pid 4242 */
    batch[n++] = 0x10, batch[n++] = 0x01;                    /* tid 1 */
    batch[n++] = 0x22, batch[n++] = sizeof event;            /* events */
    memcpy(batch + n, event, sizeof event);
    n += sizeof event;
    printf("connected\n%s\n", send(fd, batch, n, MSG_NOSIGNAL) == (ssize_t)n ? "sent" : "not sent");
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "hold") == 0) return hold(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "send") == 0) return send_forged(argv[2]);
    fprintf(stderr, "usage: peer hold FILE GO | peer send SOCKET\n");
    return 2;
}
