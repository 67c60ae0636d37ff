// Checks shared by the simulator's self-tests: each program runs every check, prints the ones
// that failed (with the values involved) and exits 1 if any did, 0 otherwise. Programs that need
// another configuration (device count, timing, a broken config file) run themselves again in a
// child process with the environment set, through run_child().
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

// Expects a CUDA call to return exactly `want`.
#define EXPECT_ERR(call, want)                                                                     \
    do {                                                                                           \
        check_count++;                                                                             \
        cudaError_t got_ = (call);                                                                 \
        if (got_ != (want)) {                                                                      \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorName(got_), cudaGetErrorName(want));                               \
        }                                                                                          \
    } while (0)

#define EXPECT_OK(call) EXPECT_ERR(call, cudaSuccess)

#define EXPECT_EQ(a, b)                                                                            \
    do {                                                                                           \
        check_count++;                                                                             \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a,    \
                    a_, #b, b_);                                                                   \
        }                                                                                          \
    } while (0)

// Floating-point comparison with a relative tolerance.
#define EXPECT_NEAR(a, b, rel)                                                                     \
    do {                                                                                           \
        check_count++;                                                                             \
        double a_ = (double)(a), b_ = (double)(b);                                                 \
        if (std::fabs(a_ - b_) > (rel) * std::fabs(b_) + 1e-12) {                                  \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: %s == %.9g, expected %.9g\n", __FILE__, __LINE__, #a, a_, b_); \
        }                                                                                          \
    } while (0)

// Simulated times: whole nanoseconds, reported by events as float milliseconds.
#define EXPECT_NS(got, want) EXPECT_NEAR(got, want, 1e-7 + 1.0 / (want))

static int check_report(const char *name) {
    if (getenv("SIM_TEST_VERBOSE"))
        fprintf(stderr, "%s: %d checks\n", name, check_count);
    if (check_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
        return 1;
    }
    return 0;
}

// Runs this program again as `argv0 mode` with extra environment ("NAME=value" strings, NULL
// terminated) and returns its exit status (-1 if it did not exit normally). With `output`, the
// child's stdout and stderr go to files `output`.out and `output`.err.
static int run_child(const char *argv0, const char *mode, const char *const *env,
                     const char *output = nullptr) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        for (const char *const *e = env; e && *e; e++)
            putenv(strdup(*e));
        if (output) {
            unsetenv("SIM_TEST_VERBOSE"); // the child's stderr is what the test inspects
            std::string out = std::string(output) + ".out", err = std::string(output) + ".err";
            if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr))
                _exit(126);
        }
        execl("/proc/self/exe", argv0, mode, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The whole content of a file ("" if unreadable).
static std::string slurp(const std::string &path) {
    std::string text;
    FILE *f = fopen(path.c_str(), "r");
    if (f) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            text.append(buf, n);
        fclose(f);
    }
    return text;
}

static int count_lines(const std::string &text) {
    int n = 0;
    for (char c : text)
        n += c == '\n';
    return n;
}

// Writes a config file and returns its path.
static std::string write_config(const char *name, const char *text) {
    char path[256];
    snprintf(path, sizeof path, "/tmp/apptrace-sim-%s-%d.conf", name, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}
