package io.apptrace.calibrate;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.FloatByReference;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * A loaded CUDA runtime (the system's or the simulated one), whose calls throw {@link
 * CudaException} instead of returning an error code.
 */
final class Cuda {
  /** {@code RTLD_LAZY} without {@code RTLD_GLOBAL}: two runtimes loaded in turn never see each other's symbols. */
  private static final int RTLD_LAZY_LOCAL = 1;

  final CudaRuntime rt;
  /** The file loaded, or the name the dynamic linker found. */
  final String library;
  /** Whether this is apptrace's simulated runtime (docs/SIMULATED-DEVICE.md). */
  final boolean simulated;

  private Cuda(CudaRuntime rt, String library, boolean simulated) {
    this.rt = rt;
    this.library = library;
    this.simulated = simulated;
  }

  /**
   * Loads the runtime at {@code pathOrName} (a path, or a name the dynamic linker looks up).
   *
   * @throws UnsatisfiedLinkError if it cannot be loaded
   */
  static Cuda load(String pathOrName, boolean simulated) {
    CudaRuntime rt = Native.load(pathOrName, CudaRuntime.class, Map.of(Library.OPTION_OPEN_FLAGS, RTLD_LAZY_LOCAL));
    return new Cuda(rt, pathOrName, simulated);
  }

  static Cuda load(Path path, boolean simulated) {
    return load(path.toString(), simulated);
  }

  void check(int error, String call) throws CudaException {
    if (error != CudaRuntime.SUCCESS) {
      rt.cudaGetLastError(); // a failed call leaves its error as the thread's last one: clear it
      throw new CudaException(call, error, String.valueOf(rt.cudaGetErrorName(error)),
          String.valueOf(rt.cudaGetErrorString(error)));
    }
  }

  int deviceCount() throws CudaException {
    IntByReference n = new IntByReference();
    check(rt.cudaGetDeviceCount(n), "cudaGetDeviceCount");
    return n.getValue();
  }

  void setDevice(int device) throws CudaException {
    check(rt.cudaSetDevice(device), "cudaSetDevice");
  }

  int attribute(int attr, int device) throws CudaException {
    IntByReference v = new IntByReference();
    check(rt.cudaDeviceGetAttribute(v, attr, device), "cudaDeviceGetAttribute");
    return v.getValue();
  }

  /** The device's name: the first field of {@code cudaDeviceProp}, {@code char name[256]}. */
  String deviceName(int device) throws CudaException {
    // CUDA 13's cudaDeviceProp is about 1 KiB; 4 KiB leaves room for later versions' fields
    try (com.sun.jna.Memory prop = new com.sun.jna.Memory(4096)) {
      prop.clear();
      check(rt.cudaGetDeviceProperties(prop, device), "cudaGetDeviceProperties");
      byte[] name = prop.getByteArray(0, 256);
      int end = 0;
      while (end < name.length && name[end] != 0) {
        end++;
      }
      return new String(name, 0, end, StandardCharsets.UTF_8).strip();
    }
  }

  String pciBusId(int device) throws CudaException {
    byte[] id = new byte[64];
    check(rt.cudaDeviceGetPCIBusId(id, id.length, device), "cudaDeviceGetPCIBusId");
    return Native.toString(id);
  }

  /** The current device's memory in bytes. */
  long totalMemory() throws CudaException {
    LongByReference free = new LongByReference();
    LongByReference total = new LongByReference();
    check(rt.cudaMemGetInfo(free, total), "cudaMemGetInfo");
    return total.getValue();
  }

  boolean canAccessPeer(int device, int peer) throws CudaException {
    IntByReference v = new IntByReference();
    check(rt.cudaDeviceCanAccessPeer(v, device, peer), "cudaDeviceCanAccessPeer");
    return v.getValue() != 0;
  }

  /**
   * Turns the current device's access to {@code peer} on or off; one already in that state is
   * fine (Pearson 2018, Algorithms 4.4 and 4.5 call these without looking).
   */
  void peerAccess(int peer, boolean on) throws CudaException {
    int e = on ? rt.cudaDeviceEnablePeerAccess(peer, 0) : rt.cudaDeviceDisablePeerAccess(peer);
    if (e == CudaRuntime.ERROR_PEER_ACCESS_ALREADY_ENABLED || e == CudaRuntime.ERROR_PEER_ACCESS_NOT_ENABLED) {
      rt.cudaGetLastError();
      return;
    }
    check(e, on ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess");
  }

  void synchronize() throws CudaException {
    check(rt.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

  void memcpy(Pointer dst, Pointer src, long bytes, int kind) throws CudaException {
    check(rt.cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
  }

  void memcpyAsync(Pointer dst, Pointer src, long bytes, int kind, Pointer stream) throws CudaException {
    check(rt.cudaMemcpyAsync(dst, src, bytes, kind, stream), "cudaMemcpyAsync");
  }

  void memset(Pointer p, long bytes) throws CudaException {
    check(rt.cudaMemset(p, 0, bytes), "cudaMemset");
  }

  /** Prefetches managed memory to a device, or to the host (NUMA node {@code numa}, or any with -1). */
  void prefetch(Pointer p, long bytes, int device, int numa, Pointer stream) throws CudaException {
    CudaRuntime.MemLocation to = device >= 0 ? new CudaRuntime.MemLocation(CudaRuntime.MEM_LOCATION_DEVICE, device)
        : numa >= 0 ? new CudaRuntime.MemLocation(CudaRuntime.MEM_LOCATION_HOST_NUMA, numa)
        : new CudaRuntime.MemLocation(CudaRuntime.MEM_LOCATION_HOST, 0);
    check(rt.cudaMemPrefetchAsync(p, bytes, to, 0, stream), "cudaMemPrefetchAsync");
  }

  Pointer stream() throws CudaException {
    PointerByReference s = new PointerByReference();
    check(rt.cudaStreamCreate(s), "cudaStreamCreate");
    return s.getValue();
  }

  Pointer event() throws CudaException {
    PointerByReference e = new PointerByReference();
    check(rt.cudaEventCreate(e), "cudaEventCreate");
    return e.getValue();
  }

  /** The time between two recorded events, in seconds (CUDA reports float milliseconds). */
  double elapsedSeconds(Pointer start, Pointer stop) throws CudaException {
    check(rt.cudaEventSynchronize(stop), "cudaEventSynchronize");
    FloatByReference ms = new FloatByReference();
    check(rt.cudaEventElapsedTime(ms, start, stop), "cudaEventElapsedTime");
    return ms.getValue() * 1e-3;
  }
}
