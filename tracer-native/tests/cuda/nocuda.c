/* A program that makes no CUDA call at all: its trace is valid and empty of CUDA events. */
#include <stdio.h>

int main(void) {
    printf("no CUDA here\n");
    return 0;
}
