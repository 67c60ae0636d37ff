/* Unit test of src/common/cubin.c on real nvcc output.
 *
 * It reads the fat binaries nvcc embedded (section .nv_fatbin) in two of the simulator's test
 * programs, target/sim-tests/sim_launch and target/sim-tests/sim_symbols (built by
 * `make sim-tests`; other paths may be given as arguments), and checks the parameter layouts of
 * kernels whose signatures are known, then damaged and truncated images, then an LZ4-compressed
 * fat binary made with nvcc when nvcc is on PATH. Exits 0 when every check passes. */
#include "cubin.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);              \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_); \
        }                                                                                          \
    } while (0)

typedef struct {
    int magic;
    int version;
    const void *data;
    void *filename_or_fatbins;
} wrapper_t; /* __fatBinC_Wrapper_t */

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* The largest fat binary in a .nv_fatbin section (which also holds the small one of nvcc's
 * device-link step), copied to its own buffer. */
static uint8_t *largest_fatbin(const uint8_t *sec, size_t n, size_t *size) {
    size_t best = 0, best_size = 0;
    for (size_t off = 0; off + 16 <= n; off += 8) {
        uint32_t magic;
        uint64_t total;
        memcpy(&magic, sec + off, 4);
        memcpy(&total, sec + off + 8, 8);
        if (magic != 0xBA55ED50u || total > n - off - 16)
            continue;
        if (total + 16 > best_size) {
            best = off;
            best_size = total + 16;
        }
        off += (total + 16) / 8 * 8 - 8;
    }
    uint8_t *out = best_size ? malloc(best_size) : NULL;
    if (out)
        memcpy(out, sec + best, best_size);
    *size = best_size;
    return out;
}

/* The main fat binary of a host executable's .nv_fatbin section. */
static uint8_t *fatbin_section(const char *path, size_t *size) {
    size_t n;
    uint8_t *img = read_file(path, &n);
    uint8_t *out = NULL;
    if (img == NULL || n < sizeof(Elf64_Ehdr))
        goto done;
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff);
    const char *names = (const char *)img + sh[eh->e_shstrndx].sh_offset;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (strcmp(names + sh[i].sh_name, ".nv_fatbin") == 0) {
            out = largest_fatbin(img + sh[i].sh_offset, sh[i].sh_size, size);
        }
    }
done:
    free(img);
    return out;
}

static wrapper_t wrap(const void *fatbin) {
    wrapper_t w = {0x466243B1, 1, fatbin, NULL};
    return w;
}

typedef struct {
    uint32_t offset, size;
} layout;

static void expect_layout(const wrapper_t *w, const char *name, const layout *want, int n,
                          uint32_t total) {
    cubin_param p[16];
    uint32_t bytes = 12345;
    int got = cubin_kernel_params(w, name, p, 16, &bytes);
    CHECK_EQ(got, n);
    if (got != n) {
        fprintf(stderr, "  (kernel %s)\n", name);
        return;
    }
    CHECK_EQ(bytes, total);
    for (int i = 0; i < n; i++) {
        CHECK_EQ(p[i].ordinal, i);
        CHECK_EQ(p[i].offset, want[i].offset);
        CHECK_EQ(p[i].size, want[i].size);
    }
}

static void known_layouts(const wrapper_t *w) {
    const layout va[] = {{0, 8}, {8, 8}, {16, 8}, {24, 4}};
    expect_layout(w, "_Z10vector_addPfPKfS1_i", va, 4, 28);
    const layout ws[] = {{0, 8}, {8, 24}, {32, 1}, {40, 8}}; /* int*, struct Pod, char, double */
    expect_layout(w, "_Z11with_structPi3Podcd", ws, 4, 48);
    const layout kc[] = {{0, 4}, {8, 8}, {16, 2}}; /* extern "C": int, void*, short */
    expect_layout(w, "k_c", kc, 3, 18);
    expect_layout(w, "_Z9no_paramsv", NULL, 0, 0);

    cubin_param two[2];
    CHECK_EQ(cubin_kernel_params(w, "_Z10vector_addPfPKfS1_i", two, 2, NULL), 4);
    CHECK_EQ(two[0].ordinal, 0);
    CHECK_EQ(two[1].ordinal, 1);
    CHECK_EQ(two[1].offset, 8);
    CHECK_EQ(cubin_kernel_params(w, "_Z10vector_addPfPKfS1_i", NULL, 0, NULL), 4);
    CHECK_EQ(cubin_kernel_params(w, "no_such_kernel", two, 2, NULL), -1);
    CHECK_EQ(cubin_kernel_params(w, "vector_add", two, 2, NULL), -1); /* names are mangled */

    cubin_kernel_attrs a;
    CHECK_EQ(cubin_kernel_attributes(w, "_Z7boundedPf", &a), 0);
    CHECK_EQ(a.max_threads, 256);
    CHECK_EQ(a.shared_bytes, 400);
    CHECK_EQ(a.num_params, 1);
    CHECK(a.num_regs > 0 && a.arch >= 50);
    CHECK_EQ(cubin_kernel_attributes(w, "no_such_kernel", &a), -1);
}

/* The first ELF entry of a fat binary: the payload and its size. */
static const uint8_t *first_elf(const uint8_t *fat, size_t *size) {
    uint64_t total, psize;
    uint16_t hsize;
    memcpy(&hsize, fat + 6, 2);
    memcpy(&total, fat + 8, 8);
    for (uint64_t pos = 0; pos < total;) {
        const uint8_t *e = fat + hsize + pos;
        uint16_t kind;
        uint32_t ehsize;
        uint64_t flags;
        memcpy(&kind, e, 2);
        memcpy(&ehsize, e + 4, 4);
        memcpy(&psize, e + 8, 8);
        memcpy(&flags, e + 0x28, 8);
        if (kind == 2 && !(flags & 0xa000)) {
            *size = psize;
            return e + ehsize;
        }
        pos += ehsize + psize;
    }
    return NULL;
}

static void raw_cubin(const uint8_t *fat) {
    size_t n = 0;
    const uint8_t *elf = first_elf(fat, &n);
    CHECK(elf != NULL);
    if (elf == NULL)
        return;
    cubin_param p[4];
    CHECK_EQ(cubin_elf_kernel_params(elf, n, "k_c", p, 4, NULL), 3);
    CHECK_EQ(p[2].offset, 16);
    /* Section headers come last: any truncation loses them or a section. */
    CHECK_EQ(cubin_elf_kernel_params(elf, n / 2, "k_c", p, 4, NULL), -1);
    CHECK_EQ(cubin_elf_kernel_params(elf, 40, "k_c", p, 4, NULL), -1);
    CHECK_EQ(cubin_elf_kernel_params(elf, 0, "k_c", p, 4, NULL), -1);
}

static void damaged(const uint8_t *fat, size_t size) {
    uint8_t *copy = malloc(size);
    wrapper_t w = wrap(copy);
    cubin_param p[8];
    uint64_t total;
    memcpy(&total, fat + 8, 8);

    memcpy(copy, fat, size);
    copy[0] ^= 0xff; /* fat binary magic */
    CHECK_EQ(cubin_kernel_params(&w, "k_c", p, 8, NULL), -1);

    memcpy(copy, fat, size);
    uint64_t small = 0x30; /* fewer bytes than the first entry header */
    memcpy(copy + 8, &small, 8);
    CHECK_EQ(cubin_kernel_params(&w, "k_c", p, 8, NULL), -1);

    memcpy(copy, fat, size);
    uint64_t huge = total * 4; /* first entry claims more than the fat binary holds */
    memcpy(copy + 16 + 8, &huge, 8);
    CHECK_EQ(cubin_kernel_params(&w, "k_c", p, 8, NULL), -1);

    memcpy(copy, fat, size);
    wrapper_t bad = w;
    bad.magic = 0x12345678;
    CHECK_EQ(cubin_kernel_params(&bad, "k_c", p, 8, NULL), -1);
    bad = w;
    bad.data = NULL;
    CHECK_EQ(cubin_kernel_params(&bad, "k_c", p, 8, NULL), -1);
    CHECK_EQ(cubin_kernel_params(NULL, "k_c", p, 8, NULL), -1);
    CHECK_EQ(cubin_kernel_params(&w, NULL, p, 8, NULL), -1);

    /* Random damage past the fat binary header: never a crash, whatever the answer. */
    srand(12345);
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, fat, size);
        for (int k = 0; k < 1 + round % 8; k++)
            copy[16 + (size_t)rand() % (size - 16)] = (uint8_t)rand();
        int r = cubin_kernel_params(&w, "_Z11with_structPi3Podcd", p, 8, NULL);
        CHECK(r >= -1 && r <= CUBIN_MAX_PARAMS);
        cubin_kernel_attrs a;
        cubin_kernel_attributes(&w, "_Z7boundedPf", &a);
    }
    free(copy);
}

static void symbols(const char *path) {
    size_t size = 0;
    uint8_t *fat = fatbin_section(path, &size);
    CHECK(fat != NULL);
    if (fat == NULL)
        return;
    wrapper_t w = wrap(fat);
    int v[4] = {-1, -1, -1, -1};
    CHECK_EQ(cubin_symbol_init(&w, "initialized", v, sizeof v), 1); /* {1, 2, 3, 4} */
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4);
    int z = -1;
    CHECK_EQ(cubin_symbol_init(&w, "zeroed", &z, sizeof z), 0);
    CHECK_EQ(z, 0);
    CHECK_EQ(cubin_symbol_init(&w, "no_such_variable", &z, sizeof z), -1);
    free(fat);
}

/* nvcc's LZ4 mode; CUDA 13's default compression (zstd) is skipped, so nothing is found. */
static void compressed(void) {
    static const struct {
        const char *mode;
        int expect;
        uint64_t flag;
    } cases[] = {{"speed", 3, 0x2000}, {"default", -1, 0x8000}};
    if (system("command -v nvcc >/dev/null 2>&1") != 0) {
        fprintf(stderr, "test_cubin: nvcc not on PATH, compressed fat binaries not tested\n");
        return;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[512], out[64];
        snprintf(out, sizeof out, "/tmp/test_cubin_%d_%s.fatbin", (int)getpid(), cases[i].mode);
        snprintf(cmd, sizeof cmd,
                 "nvcc -fatbin -Xfatbin=-compress-all -Xfatbin=-compress-mode=%s -o %s "
                 "tests/sim/sim_launch.cu",
                 cases[i].mode, out);
        CHECK(system(cmd) == 0);
        size_t n = 0;
        uint8_t *fat = read_file(out, &n);
        remove(out);
        CHECK(fat != NULL);
        if (fat == NULL)
            continue;
        uint64_t flags;
        memcpy(&flags, fat + 16 + 0x28, 8);
        CHECK(flags & cases[i].flag);
        wrapper_t w = wrap(fat);
        cubin_param p[4];
        CHECK_EQ(cubin_kernel_params(&w, "k_c", p, 4, NULL), cases[i].expect);
        if (cases[i].expect == 3)
            CHECK(p[1].offset == 8 && p[2].size == 2);
        free(fat);
    }
}

int main(int argc, char **argv) {
    const char *launch = argc > 1 ? argv[1] : "target/sim-tests/sim_launch";
    const char *syms = argc > 2 ? argv[2] : "target/sim-tests/sim_symbols";
    size_t size = 0;
    uint8_t *fat = fatbin_section(launch, &size);
    if (fat == NULL) {
        fprintf(stderr, "test_cubin: no .nv_fatbin in %s (run make sim-tests first)\n", launch);
        return 1;
    }
    wrapper_t w = wrap(fat);
    known_layouts(&w);
    raw_cubin(fat);
    damaged(fat, size);
    symbols(syms);
    compressed();
    free(fat);
    if (failures)
        fprintf(stderr, "test_cubin: %d checks failed\n", failures);
    return failures ? 1 : 0;
}
