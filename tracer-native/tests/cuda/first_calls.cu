// What the program's own error handling sees, call by call, printed so that a run under apptrace
// can be compared with an untraced one: apptrace asks the runtime about the devices at the
// program's first runtime call, and cudaGetLastError must show no trace of that.
//   first_calls getlast   cudaGetLastError and cudaPeekAtLastError first thing
//   first_calls pending   an error of the program's (cudaRuntimeGetVersion(NULL), which does not
//                         start the runtime) pending at its first call that starts it
//   first_calls launch    a <<<>>> launch first, then its cudaGetLastError
//   first_calls mixed     a failing call, then successful ones, with the last error read between
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void nothing(int *p) {
    if (p != nullptr) *p = 1;
}

static void show(const char *what, cudaError_t r) {
    printf("%s %d\n", what, (int)r);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "getlast";
    void *p = nullptr;
    if (strcmp(mode, "getlast") == 0) {
        show("cudaGetLastError", cudaGetLastError());
        show("cudaPeekAtLastError", cudaPeekAtLastError());
        int n = -1;
        show("cudaGetDeviceCount", cudaGetDeviceCount(&n));
        printf("devices %d\n", n);
    } else if (strcmp(mode, "pending") == 0) {
        show("cudaRuntimeGetVersion(NULL)", cudaRuntimeGetVersion(nullptr));
        show("cudaMalloc", cudaMalloc(&p, 256));
        show("cudaGetLastError", cudaGetLastError());
        show("cudaGetLastError", cudaGetLastError());
    } else if (strcmp(mode, "launch") == 0) {
        nothing<<<1, 1>>>(nullptr);
        show("launch: cudaGetLastError", cudaGetLastError());
        show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    } else if (strcmp(mode, "mixed") == 0) {
        show("cudaSetDevice(64)", cudaSetDevice(64));
        show("cudaMalloc", cudaMalloc(&p, 256));
        show("cudaPeekAtLastError", cudaPeekAtLastError());
        show("cudaGetLastError", cudaGetLastError());
        show("cudaGetLastError", cudaGetLastError());
        int d = -1;
        show("cudaGetDevice", cudaGetDevice(&d));
        printf("device %d\n", d);
    } else {
        fprintf(stderr, "usage: first_calls getlast|pending|launch|mixed\n");
        return 2;
    }
    if (p != nullptr) show("cudaFree", cudaFree(p));
    return 0;
}
