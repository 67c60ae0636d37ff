/* Prints a call site and how the program is loaded, one line for the test to read:
 * "<return address> <load bias> <start> <end> <build id or ->", all hex. Valid C and C++. */
#ifndef LOADED_IMAGE_H
#define LOADED_IMAGE_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

struct loaded_image {
    unsigned long bias, start, end;
    char build_id[41];
};

static void find_build_id(const struct dl_phdr_info *info, char *out) {
    strcpy(out, "-");
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const unsigned char *desc = p + sizeof *nh + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_descsz <= 20) {
                for (unsigned j = 0; j < nh->n_descsz; j++) sprintf(out + 2 * j, "%02x", desc[j]);
                return;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

/* The first object dl_iterate_phdr reports is the program itself. */
static int first_image(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct loaded_image *img = (struct loaded_image *)data;
    img->bias = info->dlpi_addr;
    img->start = (unsigned long)-1;
    img->end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        unsigned long lo = info->dlpi_addr + ph->p_vaddr;
        if (lo < img->start) img->start = lo;
        if (lo + ph->p_memsz > img->end) img->end = lo + ph->p_memsz;
    }
    find_build_id(info, img->build_id);
    return 1;
}

static void print_call_site(void *site) {
    struct loaded_image img;
    dl_iterate_phdr(first_image, &img);
    printf("%lx %lx %lx %lx %s\n", (unsigned long)site, img.bias, img.start, img.end, img.build_id);
}
#endif
