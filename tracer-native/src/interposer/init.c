/* Process lifetime of the interposer: start-up, the modules map, exit, fatal signals, fork and
 * exec. Everything here must leave the traced program exactly as it would run untraced: no
 * change in its results, no new failure, whatever happens to the collector. */
#include "record.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "api_ids.h"
#include "init.h"

#define APPTRACE_VERSION "0.1.0"
#define MAX_MODULES 512
#define MODULE_PATH 512

_Atomic bool at_active;
_Atomic bool at_exiting;
at_config at_cfg = {.malloc_threshold = 4096};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static _Atomic bool initialized;
static _Atomic bool init_done;
static uint32_t pid_cached;
static bool log_enabled;
static _Atomic bool ended;

/* The modules map, kept so a forked child or a crash handler can send it without calling into
 * the dynamic loader (not async-signal-safe). */
static struct {
    char path[MODULE_PATH];
    char build_id[41];
    uint64_t start, end, bias;
} modules[MAX_MODULES];
static int nmodules;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t at_pid(void) {
    return pid_cached;
}

static void write_all(const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t r = write(2, s, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return;
        s += r;
        n -= (size_t)r;
    }
}

static void append(char *line, size_t *len, size_t cap, const char *s) {
    size_t n = strlen(s);
    if (n > cap - *len) n = cap - *len;
    memcpy(line + *len, s, n);
    *len += n;
}

void at_warn(const char *part, ...) {
    int saved = errno;
    char line[1024];
    size_t len = 0;
    append(line, &len, sizeof line - 1, "apptrace: ");
    va_list ap;
    va_start(ap, part);
    for (const char *s = part; s != NULL; s = va_arg(ap, const char *)) {
        append(line, &len, sizeof line - 1, s);
    }
    va_end(ap);
    line[len++] = '\n';
    line[len] = '\0';
    write_all(line);
    errno = saved;
}

void at_log(const char *msg) {
    if (log_enabled) {
        write_all("apptrace[debug]: ");
        write_all(msg);
        write_all("\n");
    }
}

static uint64_t realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static ssize_t read_file(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t len = 0;
    while (len < cap) {
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    close(fd);
    return (ssize_t)len;
}

static void hex(char *out, const uint8_t *bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

static void build_id_of(const struct dl_phdr_info *info, char *out) {
    out[0] = '\0';
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *nh;
            const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                nh->n_descsz <= 20 && desc + nh->n_descsz <= end) {
                hex(out, desc, nh->n_descsz);
                return;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    if (nmodules >= MAX_MODULES) return 1;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        if (ph->p_vaddr < lo) lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi) hi = ph->p_vaddr + ph->p_memsz;
    }
    if (hi == 0) return 0;
    __typeof__(modules[0]) *m = &modules[nmodules];
    const char *name = info->dlpi_name;
    if (name == NULL || name[0] == '\0') {
        ssize_t n = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
        m->path[n > 0 ? n : 0] = '\0';
    } else {
        snprintf(m->path, sizeof m->path, "%s", name);
    }
    m->start = info->dlpi_addr + lo;
    m->end = info->dlpi_addr + hi;
    m->bias = info->dlpi_addr;
    build_id_of(info, m->build_id);
    nmodules++;
    return 0;
}

static void cache_runtime_ranges(void);

/* Sends the modules map from the cache (refreshing it first unless `cached_only`). */
static void send_modules(bool cached_only) {
    if (!cached_only) {
        pthread_mutex_lock(&modules_lock);
        nmodules = 0;
        dl_iterate_phdr(add_module, NULL);
        cache_runtime_ranges();
        pthread_mutex_unlock(&modules_lock);
    }
    for (int first = 0; first < nmodules; first += ENC_MAX_MODULES) {
        enc_module batch[ENC_MAX_MODULES];
        int n = 0;
        for (int i = first; i < nmodules && n < ENC_MAX_MODULES; i++, n++) {
            batch[n] = (enc_module){.path = modules[i].path, .start = modules[i].start,
                                    .end = modules[i].end, .build_id = modules[i].build_id,
                                    .load_bias = modules[i].bias};
        }
        at_event e;
        if (at_begin_record(&e, at_now_ns())) {
            enc_modules_body(&e.w, batch, (uint32_t)n);
            at_commit(&e);
        }
    }
}

/* Address ranges of the CUDA runtime, driver and CUPTI (from the modules cache). */
static struct {
    uint64_t start, end;
} runtime_ranges[8];
static _Atomic int nruntime_ranges;

static void cache_runtime_ranges(void) {
    static const char *names[] = {"libcudart.so", "libcuda.so", "libcupti.so", "libnvidia-"};
    int n = 0;
    for (int i = 0; i < nmodules && n < 8; i++) {
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            if (strstr(modules[i].path, names[k]) != NULL) {
                runtime_ranges[n].start = modules[i].start;
                runtime_ranges[n].end = modules[i].end;
                n++;
                break;
            }
        }
    }
    atomic_store(&nruntime_ranges, n);
}

bool at_in_runtime(uint64_t address) {
    int n = atomic_load_explicit(&nruntime_ranges, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        if (address >= runtime_ranges[i].start && address < runtime_ranges[i].end) return true;
    }
    return false;
}

static const char *cudart_path(void) {
    for (int i = 0; i < nmodules; i++) {
        if (strstr(modules[i].path, "libcudart.so") != NULL) return modules[i].path;
    }
    return "";
}

void at_send_modules(void) {
    send_modules(false);
}

static void send_process_start(void) {
    static char argv[64 * 1024];
    static char exe[ENC_MAX_PATH];
    static char host[256];
    ssize_t n = read_file("/proc/self/cmdline", argv, sizeof argv);
    ssize_t e = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[e > 0 ? e : 0] = '\0';
    if (gethostname(host, sizeof host) != 0) host[0] = '\0';
    host[sizeof host - 1] = '\0';
    enc_process_start m = {
        .pid = pid_cached,
        .ppid = (uint32_t)getppid(),
        .uid = (uint32_t)getuid(),
        .argv_buf = argv,
        .argv_len = n > 0 ? (uint32_t)n : 0,
        .monotonic_ns = at_now_ns(),
        .realtime_ns = realtime_ns(),
        .executable = exe,
        .hostname = host,
        .collector_version = APPTRACE_VERSION,
        .simulated_device = at_cfg.simulated,
        .malloc_threshold_bytes = at_cfg.malloc_threshold,
        .cupti_enabled = at_cfg.cupti_enabled,
        .cupti_status = at_cfg.cupti_status,
        .clock_source = at_clock_source(),
    };
    at_event ev;
    if (at_begin_record(&ev, m.monotonic_ns)) {
        enc_process_start_body(&ev.w, &m);
        at_commit(&ev);
    }
}

/* Records ProcessEnd once and sends everything. From then on every event is sent at once. */
void at_process_end(int exit_code, int signal) {
    bool expected = false;
    if (!atomic_load(&at_active)) return;
    /* A vfork child (or a child of a raw clone) shares this memory but is not this process: its
     * end is not ours. */
    if (at_is_other_process()) return;
    if (!atomic_compare_exchange_strong(&ended, &expected, true)) return;
    atomic_store(&at_exiting, true);
    at_tls.depth++;
    enc_process_end m = {
        .exit_code = exit_code,
        .signal = signal,
        .events = at_events_total(),
        .dropped = at_events_dropped(),
        .cudart_path = cudart_path(),
        .cuda_calls = at_calls_total(),
    };
    at_event e;
    if (at_begin_record(&e, at_now_ns())) {
        enc_process_end_body(&e.w, &m);
        at_commit(&e);
    }
    at_flush_all();
    at_tls.depth--;
}

static void on_exit_handler(int status, void *arg);

static void register_exit_handler(void) {
    on_exit(on_exit_handler, NULL);
}

static void on_exit_handler(int status, void *arg) {
    (void)arg;
    at_cupti_flush();
    at_process_end(status, 0);
}

/* Exit handlers run last-registered first, and the loader registers its own (_dl_fini, which runs
 * library destructors) after preloaded libraries' constructors have run. Registered from the
 * constructor, ours would run after every destructor and never see the exit status first; so it
 * is registered at the program's first traced call, from main or later. */
void at_arm_exit_handler(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_exit_handler);
}

/* ---- fork ---- */

/* The recursion guard is held on the forking thread from just before the fork until the child
 * has buffers of its own: nothing is recorded in between, in either process. (The fork hook holds
 * it too; these handlers also cover glibc's own calls of fork, such as daemon's.) */
static void before_fork(void) {
    at_tls.depth++;
}

static void after_fork_parent(void) {
    at_tls.depth--;
}

static void after_fork_child(void) {
    if (!atomic_load(&at_active)) {
        at_tls.depth--;
        return;
    }
    pid_cached = (uint32_t)syscall(SYS_getpid);
    atomic_store(&ended, false);
    atomic_store(&at_exiting, false);
    int region_fd = at_buffers_after_fork_child();
    if (atomic_load(&at_active)) at_transport_after_fork();
    at_transport_pass_fd(region_fd);
    if (atomic_load(&at_active)) {
        send_process_start();
        send_modules(true);
        at_devices_after_fork_child();
        at_flush_all();
    }
    at_tls.depth--;
}

bool at_is_other_process(void) {
    return (uint32_t)syscall(SYS_getpid) != pid_cached;
}

/* ---- start-up ---- */

static void read_config(void) {
    const char *v = getenv("APPTRACE_LOG");
    log_enabled = v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
    v = getenv("APPTRACE_MALLOC_THRESHOLD");
    if (v != NULL && v[0] != '\0') {
        char *end;
        unsigned long long t = strtoull(v, &end, 10);
        if (*end == '\0') at_cfg.malloc_threshold = t;
    }
    v = getenv("APPTRACE_SIM");
    at_cfg.simulated = v != NULL && strcmp(v, "1") == 0;
}

static void init(void) {
    at_tls.depth++;
    /* Marked first: a call made on another thread while start-up runs does not block in
     * pthread_once (see at_activate_slow). */
    atomic_store(&initialized, true);
    read_config();
    pid_cached = (uint32_t)syscall(SYS_getpid);
    at_clock_init();
    if (!at_transport_connect()) {
        at_log("APPTRACE_SOCKET not set or unreachable: not tracing");
        atomic_store(&init_done, true);
        at_tls.depth--;
        return;
    }
    int region_fd = at_buffers_share();
    if (region_fd < 0) {
        at_log("no shared memory for the event buffers: events not yet sent are lost if the process "
               "is killed");
    }
    at_transport_pass_fd(region_fd);
    at_cupti_init();
    atomic_store(&at_active, true);
    send_process_start();
    send_modules(false);
    at_cupti_after_start();
    at_flush_all();
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    at_signals_install();
    atomic_store(&init_done, true);
    at_tls.depth--;
}

/* A thread that calls while start-up runs on another one (a thread a library's constructor
 * started before apptrace's constructor ran) waits for it, so its calls are traced. The wait is
 * bounded: start-up takes the loader's locks, and the caller may hold one (a constructor inside
 * dlopen); then, after half a second, that thread's calls pass through untraced instead. */
static void wait_for_init(void) {
    static __thread bool gave_up AT_TLS;
    if (gave_up) return;
    struct timespec pause = {.tv_nsec = 100 * 1000};
    for (int i = 0; i < 5000 && !atomic_load(&init_done); i++) nanosleep(&pause, NULL);
    gave_up = !atomic_load(&init_done);
}

void at_ensure_init(void) {
    if (AT_UNLIKELY(!atomic_load_explicit(&initialized, memory_order_acquire))) {
        pthread_once(&init_once, init);
    }
}

bool at_activate_slow(void) {
    if (at_tls.depth > 0) return false; /* from inside start-up itself */
    at_ensure_init();
    if (AT_UNLIKELY(!atomic_load(&init_done))) wait_for_init();
    return atomic_load(&at_active);
}

__attribute__((constructor)) static void at_constructor(void) {
    at_ensure_init();
}

__attribute__((destructor)) static void at_destructor(void) {
    at_cupti_flush();
    at_process_end(0, 0);
}

void *at_resolve(const char *name) {
    uint64_t t0 = at_now_ns();
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        /* libcudart loaded with RTLD_LOCAL is not in RTLD_NEXT's scope; ask it directly. */
        void *h = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
        if (h != NULL) {
            f = at_dlsym_on(h, name);
            dlclose(h);
        }
    }
    /* a hook's first call resolves the real function before the call's entry time: the
     * collector's time, in the gap before the call, not the program's */
    uint64_t t1 = at_now_ns();
    if (t1 > t0) at_tls.collector_ns += t1 - t0;
    return f;
}
