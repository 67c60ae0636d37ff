// The linked-list traversal of Pearson 2018, Listing 5.3 (Algorithm 5.6): each step reads the index of
// the next element, so each step that lands on a page not resident on this GPU takes a page fault.
// gpu_traverse.ptx beside this file is `nvcc -ptx -arch=compute_75 gpu_traverse.cu` (CUDA 13.0);
// apptrace calibrate loads it with cudaLibraryLoadData, so no kernel needs to be linked in.
#include <cstddef>

extern "C" __global__ void gpu_traverse(size_t *ptr, size_t steps) {
  size_t next = 0;
  for (size_t i = 0; i < steps; ++i) {
    next = ptr[next];
  }
  ptr[next] = 1;
}
