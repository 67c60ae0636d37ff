/* A stand-in for libhwloc that reports API version API_VERSION (e.g. -DAPI_VERSION=0x00030100)
 * and fails to start a topology: what apptrace topo must refuse, and survive. */
unsigned hwloc_get_api_version(void) { return API_VERSION; }
int hwloc_topology_init(void **topology) { (void)topology; return -1; }
