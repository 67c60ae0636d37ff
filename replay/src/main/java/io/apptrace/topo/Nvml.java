package io.apptrace.topo;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * NVIDIA GPUs through NVML ({@code libnvidia-ml.so.1}, which comes with the driver) over JNA:
 * names, PCI bus ids, memory, PCIe limits, active NVLinks and peer access. This code has never
 * run on a machine with a GPU (docs/TOPO.md): the mapping from its facts to a node file is tested
 * with made-up facts instead ({@link SkeletonWriter}).
 */
public final class Nvml implements GpuProbe {
  /** The names tried, in order. */
  static final List<String> NAMES = List.of("libnvidia-ml.so.1");

  private static final int SUCCESS = 0;
  /** nvml.h: {@code NVML_NVLINK_MAX_LINKS} of recent drivers; older ones answer "invalid" above theirs. */
  private static final int MAX_LINKS = 18;
  /** nvml.h: {@code nvmlPciInfo_t} is busIdLegacy[16], five unsigned ints, busId[32]. */
  private static final int PCI_INFO_BYTES = 68;

  /** The NVML calls this needs (nvml.h); every handle is a pointer, every struct a buffer. */
  interface Lib extends Library {
    int nvmlInit_v2();

    int nvmlShutdown();

    String nvmlErrorString(int result);

    int nvmlSystemGetDriverVersion(byte[] version, int length);

    int nvmlDeviceGetCount_v2(IntByReference count);

    int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

    int nvmlDeviceGetName(Pointer device, byte[] name, int length);

    int nvmlDeviceGetPciInfo_v3(Pointer device, Pointer pciInfo);

    int nvmlDeviceGetMemoryInfo(Pointer device, Pointer memory);

    int nvmlDeviceGetMaxPcieLinkGeneration(Pointer device, IntByReference generation);

    int nvmlDeviceGetMaxPcieLinkWidth(Pointer device, IntByReference width);

    int nvmlDeviceGetArchitecture(Pointer device, IntByReference architecture);

    int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference active);

    int nvmlDeviceGetNvLinkRemotePciInfo_v2(Pointer device, int link, Pointer pciInfo);

    int nvmlDeviceGetNvLinkRemoteDeviceType(Pointer device, int link, IntByReference type);

    int nvmlDeviceGetP2PStatus(Pointer a, Pointer b, int capability, IntByReference status);

    int nvmlDeviceGetMultiGpuBoard(Pointer device, IntByReference multiGpu);
  }

  private final List<String> names;

  /** NVML loaded by the first of {@code names} that loads. */
  public Nvml(List<String> names) {
    this.names = List.copyOf(names);
  }

  @Override
  public Report probe() {
    Lib lib = null;
    for (String name : names) {
      try {
        lib = Native.load(name, Lib.class);
        break;
      } catch (UnsatisfiedLinkError e) {
        // try the next name
      }
    }
    if (lib == null) {
      return new Report(List.of(), Optional.empty(), List.of("NVML not found (libnvidia-ml.so.1 comes with the"
          + " NVIDIA driver package, e.g. 'nvidia-driver' / 'libnvidia-ml1'); GPUs are not enumerated"));
    }
    int r = lib.nvmlInit_v2();
    if (r != SUCCESS) {
      return new Report(List.of(), Optional.empty(), List.of("NVML is installed but cannot start ("
          + lib.nvmlErrorString(r) + "; is the NVIDIA driver loaded?); GPUs are not enumerated"));
    }
    try {
      byte[] version = new byte[80];
      String driver = lib.nvmlSystemGetDriverVersion(version, version.length) == SUCCESS
          ? "NVML (driver " + Native.toString(version) + ")" : "NVML";
      IntByReference count = new IntByReference();
      r = lib.nvmlDeviceGetCount_v2(count);
      if (r != SUCCESS) {
        return new Report(List.of(), Optional.of(driver), List.of("NVML cannot count the GPUs ("
            + lib.nvmlErrorString(r) + "); GPUs are not enumerated"));
      }
      List<Pointer> handles = new ArrayList<>();
      List<String> notes = new ArrayList<>();
      for (int i = 0; i < count.getValue(); i++) {
        PointerByReference h = new PointerByReference();
        r = lib.nvmlDeviceGetHandleByIndex_v2(i, h);
        if (r != SUCCESS) {
          notes.add("NVML cannot open GPU " + i + " (" + lib.nvmlErrorString(r) + "); it is left out");
          continue;
        }
        handles.add(h.getValue());
      }
      List<GpuFacts> gpus = new ArrayList<>();
      for (int i = 0; i < handles.size(); i++) {
        gpus.add(facts(lib, i, handles));
      }
      return new Report(gpus, Optional.of(driver), notes);
    } finally {
      lib.nvmlShutdown();
    }
  }

  private static GpuFacts facts(Lib lib, int index, List<Pointer> handles) {
    Pointer d = handles.get(index);
    byte[] name = new byte[96];
    String model = lib.nvmlDeviceGetName(d, name, name.length) == SUCCESS ? Native.toString(name) : "NVIDIA GPU";
    Memory pci = new Memory(PCI_INFO_BYTES);
    String busId = lib.nvmlDeviceGetPciInfo_v3(d, pci) == SUCCESS ? busId(pci) : "";
    Memory mem = new Memory(24); // nvmlMemory_t: total, free, used (unsigned long long)
    OptionalLong bytes = lib.nvmlDeviceGetMemoryInfo(d, mem) == SUCCESS ? OptionalLong.of(mem.getLong(0))
        : OptionalLong.empty();
    IntByReference v = new IntByReference();
    int gen = lib.nvmlDeviceGetMaxPcieLinkGeneration(d, v) == SUCCESS ? v.getValue() : 0;
    int width = lib.nvmlDeviceGetMaxPcieLinkWidth(d, v) == SUCCESS ? v.getValue() : 0;
    int nvGen = Math.max(0, optional(() -> lib.nvmlDeviceGetArchitecture(d, v) == SUCCESS
        ? nvlinkGeneration(v.getValue()) : 0));
    List<GpuFacts.NvLink> links = new ArrayList<>();
    for (int l = 0; l < MAX_LINKS; l++) {
      int link = l;
      if (optional(() -> lib.nvmlDeviceGetNvLinkState(d, link, v)) != SUCCESS || v.getValue() != 1) {
        continue; // no such link, or not active
      }
      Memory remote = new Memory(PCI_INFO_BYTES);
      String remoteId = lib.nvmlDeviceGetNvLinkRemotePciInfo_v2(d, l, remote) == SUCCESS ? busId(remote) : "";
      int type = optional(() -> lib.nvmlDeviceGetNvLinkRemoteDeviceType(d, link, v) == SUCCESS ? v.getValue() : -1);
      // nvml.h nvmlIntNvLinkDeviceType_t: 0 GPU, 1 IBM NPU (a POWER9's NVLink unit), 2 NVSwitch
      GpuFacts.Remote what = switch (type) {
        case 0 -> GpuFacts.Remote.GPU;
        case 1 -> GpuFacts.Remote.CPU;
        case 2 -> GpuFacts.Remote.SWITCH;
        default -> GpuFacts.Remote.UNKNOWN;
      };
      links.add(new GpuFacts.NvLink(l, what, remoteId));
    }
    Set<Integer> peers = new HashSet<>();
    for (int o = 0; o < handles.size(); o++) {
      Pointer other = handles.get(o);
      // nvml.h: NVML_P2P_CAPS_INDEX_READ is 0, NVML_P2P_STATUS_OK is 0
      if (o != index
          && optional(() -> lib.nvmlDeviceGetP2PStatus(d, other, 0, v) == SUCCESS ? v.getValue() : -1) == 0) {
        peers.add(o);
      }
    }
    boolean multi = optional(() -> lib.nvmlDeviceGetMultiGpuBoard(d, v) == SUCCESS ? v.getValue() : 0) > 0;
    return new GpuFacts(index, model, busId, bytes, gen, width, nvGen, links, peers, multi);
  }

  /** A call an older driver may lack: -1 when the function is not there. */
  private static int optional(IntSupplier call) {
    try {
      return call.getAsInt();
    } catch (UnsatisfiedLinkError e) {
      return -1;
    }
  }

  /** {@code 0000:3b:00.0} from nvmlPciInfo_t's domain, bus and device (function 0: a GPU's). */
  private static String busId(Memory pci) {
    return String.format(Locale.ROOT, "%04x:%02x:%02x.0", pci.getInt(16), pci.getInt(20), pci.getInt(24));
  }

  /**
   * The NVLink generation of an NVML architecture (nvml.h {@code NVML_DEVICE_ARCH_*}): Pascal (4)
   * has NVLink 1, Volta (5) and Turing (6) NVLink 2, Ampere (7) 3, Hopper (9) 4, Blackwell (10) 5.
   */
  static int nvlinkGeneration(int architecture) {
    return switch (architecture) {
      case 4 -> 1;
      case 5, 6 -> 2;
      case 7 -> 3;
      case 9 -> 4;
      case 10 -> 5;
      default -> 0;
    };
  }
}
