/* Unit test of mangle.c: parameter kinds, sizes and const-ness from mangled kernel names
 * (names as nvcc 13 mangles them; see tests/cuda/kernel_args.cu for kernels that use them). */
#include "mangle.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expect(const char *name, int count, const char *kinds, const char *sizes) {
    mangle_param p[16];
    int n = mangle_params(name, p, 16);
    if (n != count) {
        printf("FAIL %s: %d parameters, expected %d\n", name, n, count);
        failures++;
        return;
    }
    for (int i = 0; i < n && i < 16; i++) {
        char k = "?PCSA"[p[i].kind];
        if (kinds && kinds[i] != k) {
            printf("FAIL %s: parameter %d kind %c (%s), expected %c\n", name, i, k, p[i].text, kinds[i]);
            failures++;
        }
        if (sizes && (unsigned)(sizes[i] - '0') != p[i].size) {
            printf("FAIL %s: parameter %d size %u, expected %c\n", name, i, p[i].size, sizes[i]);
            failures++;
        }
    }
}

static void expect_text(const char *name, int index, const char *text) {
    mangle_param p[16];
    int n = mangle_params(name, p, 16);
    if (n <= index || strcmp(p[index].text, text) != 0) {
        printf("FAIL %s: parameter %d is \"%s\", expected \"%s\"\n", name, index,
               n > index ? p[index].text : "(none)", text);
        failures++;
    }
}

int main(void) {
    /* vector_add(float*, const float*, const float*, int): S1_ is the second candidate, PKf */
    expect("_Z10vector_addPfPKfS1_i", 4, "PCCS", "8884");
    expect_text("_Z10vector_addPfPKfS1_i", 1, "float const*");
    expect("_Z3foov", 0, "", "");
    /* struct by value and a pointer to it: Params is a candidate, S_ refers to it */
    expect("_Z6kernel6ParamsPS_", 2, "AP", "08");
    /* namespaced kernel, double** and unsigned long */
    expect("_ZN2ns6kernelEPPdm", 2, "PS", "88");
    /* template kernel<float>(T*, const T*, int): return type first, T_ = float */
    expect("_Z5scaleIfEvPT_PKS0_i", 3, "PCS", "884");
    expect_text("_Z5scaleIfEvPT_PKS0_i", 0, "float*");
    /* templated namespaced kernel: T_ is itself a candidate (S1_), so T* is S2_ */
    expect("_ZN3lib4fillIiEEvPT_S2_", 2, "PP", "88");
    expect("_ZN3lib4fillIiEEvPT_S1_", 2, "PS", "84");
    /* internal linkage marker L, as nvcc mangles kernels in anonymous or static scope */
    expect("_ZN3libL4fillIiEEvPT_S2_", 2, "PP", "88");
    /* float4 by value is a class (size unknown from the signature) */
    expect("_Z4axpy6float4Pf", 2, "AP", "08");
    /* const pointer to const pointer */
    expect("_Z1kPKPKc", 1, "C", "8");
    /* unsigned char, short, long long, bool, double */
    expect("_Z1khsxbd", 5, "SSSSS", "12818");
    /* vector type (__attribute__((vector_size))) and half */
    expect("_Z1kDv4_fDh", 2, "SS", "@2"); /* '@' - '0' = 16 */
    /* std:: types by value: a struct */
    expect("_Z1kSt4pairIifE", 1, "A", "0");
    /* not mangled, or not understood */
    if (mangle_params("vector_add", NULL, 0) != -1) { printf("FAIL extern C name parsed\n"); failures++; }
    if (mangle_params("_Z1kM1AFivE", NULL, 0) != -1) { printf("FAIL member pointer parsed\n"); failures++; }
    if (mangle_params("_Z1", NULL, 0) != -1) { printf("FAIL truncated name parsed\n"); failures++; }
    if (failures == 0) printf("test_mangle: all passed\n");
    return failures != 0;
}
