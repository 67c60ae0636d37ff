/* A stand-in for libnvidia-ml.so.1 with two GPUs joined by two NVLink bricks, written from the
 * NVML declarations apptrace's Nvml.java assumes (nvml.h): it checks the shape of the JNA calls,
 * not NVIDIA's library. -DINIT_FAILS: nvmlInit_v2 fails as without a loaded driver.
 * nvmlDeviceGetMultiGpuBoard is left out on purpose: an older driver's missing function. */
#include <stdio.h>
#include <string.h>

typedef struct {
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} pci_info;
typedef struct { unsigned long long total, free, used; } memory_info;

static int handles[2];
static int index_of(void *d) { return (int)((int *)d - handles); }

static void fill(pci_info *p, int i) {
  memset(p, 0, sizeof *p);
  p->bus = 0x3b + i;
  snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", 0x3b + i);
}

int nvmlInit_v2(void) {
#ifdef INIT_FAILS
  return 9; /* NVML_ERROR_DRIVER_NOT_LOADED */
#else
  return 0;
#endif
}
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int r) { return r == 9 ? "Driver Not Loaded" : r ? "Unknown Error" : "Success"; }
int nvmlSystemGetDriverVersion(char *v, unsigned n) { snprintf(v, n, "999.1.2"); return 0; }
int nvmlDeviceGetCount_v2(unsigned *c) { *c = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) {
  if (i > 1) return 2;
  *d = &handles[i];
  return 0;
}
int nvmlDeviceGetName(void *d, char *n, unsigned len) { snprintf(n, len, "Fake GPU %d", index_of(d)); return 0; }
int nvmlDeviceGetPciInfo_v3(void *d, pci_info *p) { fill(p, index_of(d)); return 0; }
int nvmlDeviceGetMemoryInfo(void *d, memory_info *m) {
  m->total = 16945512448ULL + (unsigned)index_of(d);
  m->free = 1;
  m->used = 2;
  return 0;
}
int nvmlDeviceGetMaxPcieLinkGeneration(void *d, unsigned *g) { (void)d; *g = 4; return 0; }
int nvmlDeviceGetMaxPcieLinkWidth(void *d, unsigned *w) { (void)d; *w = 16; return 0; }
int nvmlDeviceGetArchitecture(void *d, unsigned *a) { (void)d; *a = 7; return 0; } /* Ampere */
int nvmlDeviceGetNvLinkState(void *d, unsigned l, unsigned *active) {
  (void)d;
  if (l > 11) return 2; /* NVML_ERROR_INVALID_ARGUMENT: an A100 has 12 */
  *active = l < 2;
  return 0;
}
int nvmlDeviceGetNvLinkRemotePciInfo_v2(void *d, unsigned l, pci_info *p) { (void)l; fill(p, 1 - index_of(d)); return 0; }
int nvmlDeviceGetNvLinkRemoteDeviceType(void *d, unsigned l, int *t) { (void)d; (void)l; *t = 0; return 0; }
int nvmlDeviceGetP2PStatus(void *a, void *b, int cap, int *s) {
  (void)cap;
  *s = index_of(a) == 0 && index_of(b) == 1 ? 0 : 1; /* gpu0 reads gpu1, not the other way */
  return 0;
}
