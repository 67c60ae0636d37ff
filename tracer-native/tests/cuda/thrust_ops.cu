// Real library code on the capture path: Thrust and CUB (shipped with the CUDA toolkit) allocate,
// copy, synchronize, query occupancy and launch template-heavy kernels. Under the simulator the
// kernels do not run, so the printed values are not checked; the run must complete and every
// launch must have a decoded, typed parameter layout.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/sequence.h>
#include <thrust/functional.h>
#include <cstdio>
int main() {
    thrust::host_vector<int> h(1 << 16);
    for (size_t i = 0; i < h.size(); i++) h[i] = (int)((i * 2654435761u) % 1000);
    thrust::device_vector<int> d = h;
    thrust::device_vector<int> e(d.size());
    thrust::transform(d.begin(), d.end(), e.begin(), thrust::negate<int>());
    thrust::sort(d.begin(), d.end());
    long sum = thrust::reduce(e.begin(), e.end(), 0L);
    thrust::host_vector<int> back = d;
    printf("thrust: sum %ld first %d\n", sum, (int)back[0]);
    return 0;
}
