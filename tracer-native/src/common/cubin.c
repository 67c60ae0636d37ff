/* Kernel parameter layouts, kernel resource usage and variable initializers from the fat binary
 * nvcc embeds in a program (see cubin.h for the format overview).
 *
 * Layout of a fat binary (all little endian):
 *   header: u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of the entries
 *   entry:  u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64 payload size,
 *           u32 compressed size, u32 -, u16 minor, u16 major, u32 arch, u32 name offset,
 *           u32 name length, u64 flags, u64 -, u64 uncompressed size; then the payload
 * The payload of an ELF entry is a cubin, LZ4-compressed (one block) when flag 0x2000 is set and
 * zstd-compressed when flag 0x8000 is set (CUDA 13's default compression mode). Entries this
 * reader cannot decompress are skipped: another entry of the same fat binary may hold the kernel.
 *
 * In a cubin, ".nv.info.<kernel>" is a list of records: u8 format, u8 attribute, then for format
 * 4 a u16 length and that many bytes, for formats 1-3 a u16 value (records are 4-byte aligned).
 * Every offset read from the image is checked against the size of the image it points into.
 */
#include "cubin.h"

#include <stdlib.h>
#include <string.h>

#define WRAPPER_MAGIC 0x466243B1u
#define FATBIN_MAGIC 0xBA55ED50u
#define ELF_MAGIC 0x464c457fu
#define FATBIN_KIND_ELF 2
#define FATBIN_FLAG_LZ4 0x2000u
#define FATBIN_FLAG_ZSTD 0x8000u
/* Sanity bounds: a fat binary or cubin larger than this is taken as damaged. */
#define FATBIN_MAX_BYTES (1ull << 31)

#define SHT_SYMTAB 2
#define SHT_NOBITS 8

#define EIATTR_MAX_THREADS 0x05
#define EIATTR_PARAM_CBANK 0x0a
#define EIATTR_REQNTID 0x10
#define EIATTR_FRAME_SIZE 0x11
#define EIATTR_KPARAM_INFO 0x17
#define EIATTR_CBANK_PARAM_SIZE 0x19
#define EIATTR_REGCOUNT 0x2f

static uint16_t rd16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t rd64(const uint8_t *p) {
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

/* ---- ELF64 view ---------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *img;
    size_t size;
    const uint8_t *shdrs;
    unsigned shnum;
    unsigned shentsize;
    const uint8_t *shstr; /* section-name string table */
    size_t shstr_size;
} elf_view;

typedef struct {
    const char *name; /* NUL-terminated inside the image */
    uint32_t type;
    const uint8_t *data; /* NULL for NOBITS */
    uint64_t size;
    uint32_t link;
    uint32_t info;
} elf_sec;

static int in_bounds(uint64_t off, uint64_t len, size_t size) {
    return off <= size && len <= size - off;
}

static int elf_section_raw(const elf_view *v, unsigned i, uint32_t *name, uint32_t *type,
                           uint64_t *off, uint64_t *size, uint32_t *link, uint32_t *info) {
    if (i >= v->shnum)
        return -1;
    const uint8_t *s = v->shdrs + (size_t)i * v->shentsize;
    *name = rd32(s);
    *type = rd32(s + 4);
    *off = rd64(s + 24);
    *size = rd64(s + 32);
    *link = rd32(s + 40);
    *info = rd32(s + 44);
    return 0;
}

static int elf_open(elf_view *v, const uint8_t *img, size_t size) {
    memset(v, 0, sizeof *v);
    if (size < 64 || rd32(img) != ELF_MAGIC || img[4] != 2 /* ELFCLASS64 */ || img[5] != 1 /* LE */)
        return -1;
    uint64_t shoff = rd64(img + 0x28);
    unsigned shentsize = rd16(img + 0x3a), shnum = rd16(img + 0x3c), shstrndx = rd16(img + 0x3e);
    if (shentsize < 64 || shnum == 0 || !in_bounds(shoff, (uint64_t)shentsize * shnum, size))
        return -1;
    v->img = img;
    v->size = size;
    v->shdrs = img + shoff;
    v->shnum = shnum;
    v->shentsize = shentsize;
    uint32_t nm, type, link, info;
    uint64_t off, len;
    if (elf_section_raw(v, shstrndx, &nm, &type, &off, &len, &link, &info) != 0 ||
        !in_bounds(off, len, size) || len == 0 || img[off + len - 1] != '\0')
        return -1;
    v->shstr = img + off;
    v->shstr_size = (size_t)len;
    return 0;
}

static int elf_section(const elf_view *v, unsigned i, elf_sec *out) {
    uint32_t nm;
    uint64_t off;
    if (elf_section_raw(v, i, &nm, &out->type, &off, &out->size, &out->link, &out->info) != 0 ||
        nm >= v->shstr_size)
        return -1;
    out->name = (const char *)v->shstr + nm; /* terminated: the table ends with NUL */
    if (out->type == SHT_NOBITS) {
        out->data = NULL;
        return 0;
    }
    if (!in_bounds(off, out->size, v->size))
        return -1;
    out->data = v->img + off;
    return 0;
}

/* Finds the section named prefix + suffix (suffix may be NULL). Returns its index or -1. */
static int elf_find(const elf_view *v, const char *prefix, const char *suffix, elf_sec *out) {
    size_t plen = strlen(prefix);
    for (unsigned i = 1; i < v->shnum; i++) {
        if (elf_section(v, i, out) != 0)
            continue;
        if (strncmp(out->name, prefix, plen) != 0)
            continue;
        if (suffix ? strcmp(out->name + plen, suffix) == 0 : out->name[plen] == '\0')
            return (int)i;
    }
    return -1;
}

/* Index of the symbol `name` in .symtab, its section index and value/size, or -1. */
static long elf_find_symbol(const elf_view *v, const char *name, unsigned *shndx, uint64_t *value,
                            uint64_t *size) {
    elf_sec symtab, strtab;
    for (unsigned i = 1; i < v->shnum; i++) {
        if (elf_section(v, i, &symtab) != 0 || symtab.type != SHT_SYMTAB || symtab.data == NULL)
            continue;
        if (elf_section(v, symtab.link, &strtab) != 0 || strtab.data == NULL || strtab.size == 0 ||
            strtab.data[strtab.size - 1] != '\0')
            return -1;
        uint64_t count = symtab.size / 24;
        for (uint64_t s = 1; s < count; s++) {
            const uint8_t *sym = symtab.data + s * 24;
            uint32_t nm = rd32(sym);
            if (nm >= strtab.size || strcmp((const char *)strtab.data + nm, name) != 0)
                continue;
            *shndx = rd16(sym + 6);
            *value = rd64(sym + 8);
            *size = rd64(sym + 16);
            return (long)s;
        }
        return -1;
    }
    return -1;
}

/* ---- EIATTR records ------------------------------------------------------------------------ */

typedef struct {
    uint8_t format;
    uint8_t attr;
    uint16_t value;      /* formats 1-3 */
    const uint8_t *data; /* format 4 */
    uint16_t len;
} eiattr;

/* Reads the record at *pos; returns 1 and advances, 0 at the end, -1 on a damaged record. */
static int eiattr_next(const elf_sec *sec, uint64_t *pos, eiattr *out) {
    if (*pos >= sec->size)
        return 0;
    if (sec->size - *pos < 4)
        return -1;
    const uint8_t *p = sec->data + *pos;
    out->format = p[0];
    out->attr = p[1];
    out->data = NULL;
    out->len = 0;
    out->value = rd16(p + 2);
    if (out->format == 4) {
        out->len = out->value;
        out->value = 0;
        if (sec->size - *pos - 4 < out->len)
            return -1;
        out->data = p + 4;
        *pos += 4u + out->len;
    } else if (out->format >= 1 && out->format <= 3) {
        *pos += 4;
    } else {
        return -1;
    }
    return 1;
}

/* ---- Decompression ------------------------------------------------------------------------- */

/* LZ4 block format: sequences of token, literals, 2-byte offset, match. */
static int lz4_block_decode(const uint8_t *src, size_t srclen, uint8_t *dst, size_t dstlen) {
    size_t ip = 0, op = 0;
    while (ip < srclen) {
        uint8_t token = src[ip++];
        size_t lit = token >> 4;
        if (lit == 15) {
            uint8_t b;
            do {
                if (ip >= srclen)
                    return -1;
                b = src[ip++];
                lit += b;
            } while (b == 255);
        }
        if (lit > srclen - ip || lit > dstlen - op)
            return -1;
        memcpy(dst + op, src + ip, lit);
        ip += lit;
        op += lit;
        if (ip == srclen)
            break; /* the last sequence has literals only */
        if (srclen - ip < 2)
            return -1;
        size_t off = (size_t)src[ip] | ((size_t)src[ip + 1] << 8);
        ip += 2;
        if (off == 0 || off > op)
            return -1;
        size_t mlen = token & 15u;
        if (mlen == 15) {
            uint8_t b;
            do {
                if (ip >= srclen)
                    return -1;
                b = src[ip++];
                mlen += b;
            } while (b == 255);
        }
        mlen += 4;
        if (mlen > dstlen - op)
            return -1;
        for (size_t i = 0; i < mlen; i++) /* byte by byte: source and target may overlap */
            dst[op + i] = dst[op - off + i];
        op += mlen;
    }
    return op == dstlen ? 0 : -1;
}

/* ---- Fat binary walk ----------------------------------------------------------------------- */

typedef struct {
    const elf_view *elf;
    uint32_t arch; /* from the fat binary entry, 0 if unknown */
} cubin_ref;

/* Visitor: returns >= 0 to stop the walk with that result, -1 to go on. */
typedef int (*cubin_visitor)(const cubin_ref *ref, void *ctx);

static int visit_image(const uint8_t *img, size_t size, uint32_t arch, cubin_visitor fn, void *ctx) {
    elf_view v;
    if (elf_open(&v, img, size) != 0)
        return -1;
    cubin_ref ref = {&v, arch};
    return fn(&ref, ctx);
}

static int visit_entry(const uint8_t *e, uint32_t hsize, uint64_t psize, cubin_visitor fn,
                       void *ctx) {
    const uint8_t *payload = e + hsize;
    uint32_t arch = rd32(e + 0x1c);
    uint64_t flags = hsize >= 0x40 ? rd64(e + 0x28) : 0;
    if (flags & FATBIN_FLAG_LZ4) {
        uint64_t csize = rd32(e + 0x10);
        uint64_t usize = hsize >= 0x40 ? rd64(e + 0x38) : 0;
        if (csize == 0 || csize > psize)
            csize = psize;
        if (usize == 0 || usize > FATBIN_MAX_BYTES)
            return -1;
        uint8_t *buf = malloc((size_t)usize);
        if (buf == NULL)
            return -1;
        int r = -1;
        if (lz4_block_decode(payload, (size_t)csize, buf, (size_t)usize) == 0)
            r = visit_image(buf, (size_t)usize, arch, fn, ctx);
        free(buf);
        return r;
    }
    if (flags & FATBIN_FLAG_ZSTD)
        return -1; /* zstd (CUDA 13's default compression mode) is not decoded: skip the entry */
    return visit_image(payload, (size_t)psize, arch, fn, ctx);
}

/* Calls fn on every ELF cubin of the fat binary at `fat` until it returns >= 0. */
static int visit_fatbin(const uint8_t *fat, cubin_visitor fn, void *ctx) {
    if (rd32(fat) != FATBIN_MAGIC)
        return -1;
    uint32_t hsize = rd16(fat + 6);
    uint64_t total = rd64(fat + 8);
    if (hsize < 16 || total > FATBIN_MAX_BYTES)
        return -1;
    const uint8_t *entries = fat + hsize;
    uint64_t pos = 0;
    while (pos < total) {
        if (total - pos < 0x40)
            return -1;
        const uint8_t *e = entries + pos;
        uint16_t kind = rd16(e);
        uint32_t ehsize = rd32(e + 4);
        uint64_t psize = rd64(e + 8);
        if (ehsize < 0x40 || !in_bounds(ehsize, psize, (size_t)(total - pos)))
            return -1;
        if (kind == FATBIN_KIND_ELF) {
            int r = visit_entry(e, ehsize, psize, fn, ctx);
            if (r >= 0)
                return r;
        }
        pos += ehsize + psize;
    }
    return -1;
}

/* Size of an ELF image whose length nobody recorded: its section headers come last or near it. */
static size_t elf_extent(const uint8_t *img) {
    uint64_t shoff = rd64(img + 0x28);
    uint64_t end = shoff + (uint64_t)rd16(img + 0x3a) * rd16(img + 0x3c);
    for (unsigned i = 0; i < rd16(img + 0x3c); i++) {
        const uint8_t *s = img + shoff + (size_t)i * rd16(img + 0x3a);
        if (rd32(s + 4) != SHT_NOBITS && rd64(s + 24) + rd64(s + 32) > end)
            end = rd64(s + 24) + rd64(s + 32);
    }
    return end > FATBIN_MAX_BYTES ? 0 : (size_t)end;
}

static int visit_wrapper(const void *fatbin_wrapper, cubin_visitor fn, void *ctx) {
    if (fatbin_wrapper == NULL)
        return -1;
    const uint8_t *w = fatbin_wrapper;
    uint32_t magic = rd32(w), version = rd32(w + 4);
    const uint8_t *data;
    memcpy(&data, w + 8, sizeof data);
    if (magic != WRAPPER_MAGIC || version < 1 || version > 2 || data == NULL)
        return -1;
    if (rd32(data) == FATBIN_MAGIC)
        return visit_fatbin(data, fn, ctx);
    if (rd32(data) == ELF_MAGIC) {
        size_t size = elf_extent(data);
        return size ? visit_image(data, size, 0, fn, ctx) : -1;
    }
    return -1;
}

/* ---- Kernel parameters --------------------------------------------------------------------- */

typedef struct {
    const char *name;
    cubin_param *out;
    int max;
    uint32_t *params_bytes;
} params_query;

/* Inserts p into out[0..*n) kept sorted by ordinal and bounded by max. */
static void insert_param(cubin_param *out, int max, int *n, cubin_param p) {
    if (max <= 0)
        return;
    int i = *n < max ? *n : max - 1;
    if (*n >= max && p.ordinal >= out[max - 1].ordinal)
        return;
    while (i > 0 && out[i - 1].ordinal > p.ordinal) {
        out[i] = out[i - 1];
        i--;
    }
    out[i] = p;
    if (*n < max)
        (*n)++;
}

static int params_in_info(const elf_sec *info, params_query *q) {
    uint64_t pos = 0;
    eiattr a;
    int count = 0, stored = 0, r;
    uint32_t total = 0;
    while ((r = eiattr_next(info, &pos, &a)) == 1) {
        if (a.format == 4 && a.attr == EIATTR_KPARAM_INFO && a.len >= 12) {
            uint32_t packed = rd32(a.data + 8);
            cubin_param p = {rd16(a.data + 4), rd16(a.data + 6), (packed >> 18) & 0x3fffu};
            insert_param(q->out, q->max, &stored, p);
            count++;
        } else if (a.format == 4 && a.attr == EIATTR_PARAM_CBANK && a.len >= 8) {
            total = rd16(a.data + 6);
        } else if (a.format == 3 && a.attr == EIATTR_CBANK_PARAM_SIZE && total == 0) {
            total = a.value;
        }
    }
    if (r < 0 || count > CUBIN_MAX_PARAMS)
        return -1;
    if (q->params_bytes)
        *q->params_bytes = total;
    return count;
}

static int params_visitor(const cubin_ref *ref, void *ctx) {
    params_query *q = ctx;
    elf_sec sec;
    if (elf_find(ref->elf, ".nv.info.", q->name, &sec) >= 0 && sec.data != NULL)
        return params_in_info(&sec, q);
    if (elf_find(ref->elf, ".text.", q->name, &sec) >= 0) {
        if (q->params_bytes) /* a kernel without an info section has no parameters */
            *q->params_bytes = 0;
        return 0;
    }
    return -1;
}

int cubin_kernel_params(const void *fatbin_wrapper, const char *name, cubin_param *out, int max,
                        uint32_t *params_bytes) {
    if (name == NULL || (out == NULL && max > 0))
        return -1;
    params_query q = {name, out, max, params_bytes};
    return visit_wrapper(fatbin_wrapper, params_visitor, &q);
}

int cubin_elf_kernel_params(const void *image, size_t size, const char *name, cubin_param *out,
                            int max, uint32_t *params_bytes) {
    if (image == NULL || name == NULL || (out == NULL && max > 0))
        return -1;
    params_query q = {name, out, max, params_bytes};
    return visit_image(image, size, 0, params_visitor, &q);
}

/* ---- Kernel attributes --------------------------------------------------------------------- */

/* Looks up a per-symbol value (REGCOUNT, FRAME_SIZE: u32 symbol index, u32 value) in .nv.info. */
static int module_info_value(const elf_view *v, long symidx, uint8_t attr, uint32_t *value) {
    elf_sec sec;
    if (symidx < 0 || elf_find(v, ".nv.info", NULL, &sec) < 0 || sec.data == NULL)
        return -1;
    uint64_t pos = 0;
    eiattr a;
    while (eiattr_next(&sec, &pos, &a) == 1) {
        if (a.format == 4 && a.attr == attr && a.len >= 8 && rd32(a.data) == (uint32_t)symidx) {
            *value = rd32(a.data + 4);
            return 0;
        }
    }
    return -1;
}

static void kernel_info_attrs(const elf_sec *info, cubin_kernel_attrs *out) {
    uint64_t pos = 0;
    eiattr a;
    while (eiattr_next(info, &pos, &a) == 1) {
        if (a.format != 4 || a.len < 12)
            continue;
        if (a.attr == EIATTR_MAX_THREADS || a.attr == EIATTR_REQNTID) {
            uint64_t n = (uint64_t)rd32(a.data) * rd32(a.data + 4) * rd32(a.data + 8);
            if (n > 0 && n <= 0xffffffffu)
                out->max_threads = (uint32_t)n;
        }
    }
}

static int attrs_visitor(const cubin_ref *ref, void *ctx) {
    cubin_kernel_attrs *out = ctx;
    const elf_view *v = ref->elf;
    elf_sec info, sec;
    int have_info = elf_find(v, ".nv.info.", out->name, &info) >= 0 && info.data != NULL;
    if (!have_info && elf_find(v, ".text.", out->name, &sec) < 0)
        return -1;
    params_query q = {out->name, NULL, 0, &out->params_bytes};
    out->params_bytes = 0;
    out->num_params = have_info ? params_in_info(&info, &q) : 0;
    if (have_info)
        kernel_info_attrs(&info, out);
    unsigned shndx;
    uint64_t value, size;
    long sym = elf_find_symbol(v, out->name, &shndx, &value, &size);
    module_info_value(v, sym, EIATTR_REGCOUNT, &out->num_regs);
    module_info_value(v, sym, EIATTR_FRAME_SIZE, &out->local_bytes);
    if (elf_find(v, ".nv.shared.", out->name, &sec) >= 0 && sec.size <= 0xffffffffu)
        out->shared_bytes = (uint32_t)sec.size;
    if (elf_find(v, ".nv.constant3", NULL, &sec) >= 0 && sec.size <= 0xffffffffu)
        out->const_bytes = (uint32_t)sec.size;
    out->arch = ref->arch;
    return 0;
}

int cubin_kernel_attributes(const void *fatbin_wrapper, const char *name, cubin_kernel_attrs *out) {
    if (name == NULL || out == NULL)
        return -1;
    memset(out, 0, sizeof *out);
    out->name = name;
    return visit_wrapper(fatbin_wrapper, attrs_visitor, out) >= 0 ? 0 : -1;
}

/* ---- Variable initializers ----------------------------------------------------------------- */

typedef struct {
    const char *name;
    uint8_t *dst;
    size_t size;
} symbol_query;

static int symbol_visitor(const cubin_ref *ref, void *ctx) {
    symbol_query *q = ctx;
    unsigned shndx;
    uint64_t value, size;
    if (elf_find_symbol(ref->elf, q->name, &shndx, &value, &size) < 0 || shndx == 0 ||
        shndx >= 0xff00 /* SHN_LORESERVE: absolute, common... */)
        return -1;
    elf_sec sec;
    if (elf_section(ref->elf, shndx, &sec) != 0)
        return -1;
    memset(q->dst, 0, q->size);
    if (sec.data == NULL)
        return 0; /* .nv.global and friends: zero-initialized */
    uint64_t n = size < q->size ? size : q->size;
    if (!in_bounds(value, n, (size_t)sec.size))
        return -1;
    memcpy(q->dst, sec.data + value, (size_t)n);
    return 1;
}

int cubin_symbol_init(const void *fatbin_wrapper, const char *name, void *dst, size_t size) {
    if (name == NULL || (dst == NULL && size > 0))
        return -1;
    symbol_query q = {name, dst, size};
    return visit_wrapper(fatbin_wrapper, symbol_visitor, &q);
}
