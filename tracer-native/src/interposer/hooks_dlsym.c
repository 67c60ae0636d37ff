/* dlsym: a program that loads the CUDA runtime itself (dlopen, then dlsym on the handle, as
 * frameworks that load CUDA on demand do) gets apptrace's hooks for the runtime's functions, as a
 * program linked to the runtime does, so its calls are traced.
 *
 * dlsym is defined in assembly because for RTLD_DEFAULT and RTLD_NEXT the answer depends on the
 * caller: glibc finds the calling object from dlsym's return address. Those two are passed on to
 * glibc's dlsym with a jump, not a call, so glibc sees the program's return address and answers
 * exactly as it would untraced. Only a lookup on a handle (where the caller does not matter) goes
 * through C: when glibc's answer is a function of a libcudart, and apptrace hooks that function
 * and its hook calls exactly that one, the hook is returned instead. dlvsym is not interposed. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "hook.h"

typedef void *(*dlsym_fn)(void *, const char *);

__attribute__((visibility("hidden"))) _Atomic(dlsym_fn) at_real_dlsym;

__attribute__((visibility("hidden"))) dlsym_fn at_dlsym_resolve(void) {
    dlsym_fn f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (f == NULL) f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    atomic_store(&at_real_dlsym, f);
    return f;
}

/* glibc's dlsym on a handle, for apptrace's own lookups. */
void *at_dlsym_on(void *handle, const char *name) {
    dlsym_fn real = atomic_load(&at_real_dlsym);
    if (real == NULL) real = at_dlsym_resolve();
    return real != NULL ? real(handle, name) : NULL;
}

static bool in_runtime_library(void *f) {
    Dl_info info;
    if (dladdr(f, &info) == 0 || info.dli_fname == NULL) return false;
    const char *base = strrchr(info.dli_fname, '/');
    return strncmp(base != NULL ? base + 1 : info.dli_fname, "libcudart.so", 12) == 0;
}

static bool in_this_library(void *f) {
    Dl_info mine, other;
    return dladdr((void *)in_this_library, &mine) != 0 && dladdr(f, &other) != 0 &&
           mine.dli_fbase == other.dli_fbase;
}

__attribute__((visibility("hidden"))) void *at_dlsym_handle(void *handle, const char *name) {
    void *f = at_dlsym_on(handle, name);
    if (f == NULL || name == NULL || !in_runtime_library(f)) return f;
    void *hook = at_dlsym_on(RTLD_DEFAULT, name);
    bool ours = hook != NULL && hook != f && in_this_library(hook) && at_resolve(name) == f;
    dlerror(); /* the program's lookup succeeded: leave no error from the lookups made here */
    return ours ? hook : f;
}

/* dlsym(handle, name): RTLD_DEFAULT (0) and RTLD_NEXT (-1) jump to glibc's; any other handle
 * jumps to at_dlsym_handle. The arguments stay in rdi and rsi throughout. */
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        ".cfi_startproc\n"
        "  endbr64\n"
        "  testq %rdi, %rdi\n"
        "  je 1f\n"
        "  cmpq $-1, %rdi\n"
        "  je 1f\n"
        "  jmp at_dlsym_handle\n"
        "1:\n"
        "  movq at_real_dlsym(%rip), %rax\n"
        "  testq %rax, %rax\n"
        "  je 2f\n"
        "  jmp *%rax\n"
        "2:\n"
        "  pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  call at_dlsym_resolve\n"
        "  addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  jmp *%rax\n"
        ".cfi_endproc\n"
        ".size dlsym, .-dlsym\n");
