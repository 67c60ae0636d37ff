// What the MPI test programs share: a failed CUDA call prints where and why, then ends the whole
// job (MPI_Abort with code 1).
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                 \
        }                                                                                 \
    } while (0)
