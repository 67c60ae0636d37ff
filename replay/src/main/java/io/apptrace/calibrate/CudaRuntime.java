package io.apptrace.calibrate;

import com.sun.jna.Callback;
import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.FloatByReference;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The CUDA 13 runtime functions calibration calls, bound through JNA ({@code
 * /usr/local/cuda/include/cuda_runtime_api.h}). Every function returns a {@code cudaError_t}; {@code
 * size_t} is a Java {@code long} (LP64 Linux). Used only through {@link Cuda}, which checks the
 * errors.
 */
interface CudaRuntime extends Library {
  int SUCCESS = 0;
  int ERROR_INSUFFICIENT_DRIVER = 35;
  int ERROR_NO_DEVICE = 100;
  int ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;
  int ERROR_PEER_ACCESS_NOT_ENABLED = 705;

  int MEMCPY_HOST_TO_HOST = 0;
  int MEMCPY_HOST_TO_DEVICE = 1;
  int MEMCPY_DEVICE_TO_HOST = 2;
  int MEMCPY_DEVICE_TO_DEVICE = 3;
  int MEMCPY_DEFAULT = 4;

  int HOST_ALLOC_DEFAULT = 0;
  int HOST_ALLOC_WRITE_COMBINED = 4;
  int HOST_REGISTER_DEFAULT = 0;
  int MEM_ATTACH_GLOBAL = 1;

  int ATTR_CLOCK_RATE_KHZ = 13;
  int ATTR_MULTIPROCESSOR_COUNT = 16;
  int ATTR_MEMORY_CLOCK_RATE_KHZ = 36;
  int ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37;
  int ATTR_ASYNC_ENGINE_COUNT = 40;
  int ATTR_MANAGED_MEMORY = 83;

  int MEM_LOCATION_DEVICE = 1;
  int MEM_LOCATION_HOST = 2;
  int MEM_LOCATION_HOST_NUMA = 3;

  /** {@code struct cudaMemLocation}, passed by value to {@code cudaMemPrefetchAsync}. */
  @Structure.FieldOrder({"type", "id"})
  class MemLocation extends Structure implements Structure.ByValue {
    public int type;
    public int id;

    MemLocation() {}

    MemLocation(int type, int id) {
      this.type = type;
      this.id = id;
    }
  }

  /** {@code dim3}, passed by value to {@code cudaLaunchKernel}. */
  @Structure.FieldOrder({"x", "y", "z"})
  class Dim3 extends Structure implements Structure.ByValue {
    public int x;
    public int y;
    public int z;

    Dim3() {}

    Dim3(int x, int y, int z) {
      this.x = x;
      this.y = y;
      this.z = z;
    }
  }

  /** {@code cudaHostFn_t}: a host function a stream runs in order. */
  interface HostFn extends Callback {
    void invoke(Pointer userData);
  }

  int cudaGetDeviceCount(IntByReference count);

  int cudaSetDevice(int device);

  int cudaGetDeviceProperties(Pointer prop, int device);

  int cudaDeviceGetAttribute(IntByReference value, int attr, int device);

  int cudaDeviceGetPCIBusId(byte[] pciBusId, int len, int device);

  int cudaMemGetInfo(LongByReference free, LongByReference total);

  int cudaDeviceSynchronize();

  int cudaDeviceCanAccessPeer(IntByReference canAccess, int device, int peerDevice);

  int cudaDeviceEnablePeerAccess(int peerDevice, int flags);

  int cudaDeviceDisablePeerAccess(int peerDevice);

  int cudaMalloc(PointerByReference devPtr, long size);

  int cudaFree(Pointer devPtr);

  int cudaHostAlloc(PointerByReference ptr, long size, int flags);

  int cudaFreeHost(Pointer ptr);

  int cudaHostRegister(Pointer ptr, long size, int flags);

  int cudaHostUnregister(Pointer ptr);

  int cudaMallocManaged(PointerByReference devPtr, long size, int flags);

  int cudaMemset(Pointer devPtr, int value, long count);

  int cudaMemcpy(Pointer dst, Pointer src, long count, int kind);

  int cudaMemcpyAsync(Pointer dst, Pointer src, long count, int kind, Pointer stream);

  int cudaMemPrefetchAsync(Pointer devPtr, long count, MemLocation location, int flags, Pointer stream);

  int cudaStreamCreate(PointerByReference stream);

  int cudaStreamDestroy(Pointer stream);

  int cudaStreamSynchronize(Pointer stream);

  int cudaLaunchHostFunc(Pointer stream, HostFn fn, Pointer userData);

  int cudaEventCreate(PointerByReference event);

  int cudaEventRecord(Pointer event, Pointer stream);

  int cudaEventSynchronize(Pointer event);

  int cudaEventElapsedTime(FloatByReference ms, Pointer start, Pointer end);

  int cudaEventDestroy(Pointer event);

  int cudaGraphCreate(PointerByReference graph, int flags);

  int cudaGraphAddEmptyNode(PointerByReference node, Pointer graph, Pointer dependencies, long numDependencies);

  int cudaGraphInstantiate(PointerByReference exec, Pointer graph, long flags);

  int cudaGraphLaunch(Pointer exec, Pointer stream);

  int cudaGraphExecDestroy(Pointer exec);

  int cudaGraphDestroy(Pointer graph);

  int cudaLibraryLoadData(PointerByReference library, Pointer code, Pointer jitOptions, Pointer jitOptionValues,
      int numJitOptions, Pointer libraryOptions, Pointer libraryOptionValues, int numLibraryOptions);

  int cudaLibraryGetKernel(PointerByReference kernel, Pointer library, String name);

  int cudaLibraryUnload(Pointer library);

  int cudaLaunchKernel(Pointer func, Dim3 gridDim, Dim3 blockDim, Pointer args, long sharedMem, Pointer stream);

  int cudaGetLastError();

  String cudaGetErrorName(int error);

  String cudaGetErrorString(int error);
}
