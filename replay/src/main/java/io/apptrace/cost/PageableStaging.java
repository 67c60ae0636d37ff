package io.apptrace.cost;

/**
 * A copy between pageable host memory and a GPU, staged by the driver through pinned buffers
 * (Pearson 2018, sec. 2.4.2 and 4.2.1; docs/COST-MODEL.md, "Pageable host memory"): the data moves
 * in chunks of the staging buffer's size; one CPU thread copies each chunk between the pageable
 * memory and a pinned buffer at its memcpy bandwidth, and the GPU's DMA moves it between that buffer
 * and the GPU. <b>Choice</b>: two buffers, so the CPU's copy of one chunk overlaps the DMA of the
 * other, and a chunk's DMA waits for its buffer to be filled (host to device) or emptied (device to
 * host).
 *
 * <p>What it yields is the data part of the two views of docs/COST-MODEL.md, "Timing kinds": the
 * GPU's span (from the first chunk's DMA to the last one's: a copy of one chunk shows only its DMA,
 * the CPU's copy happening before or after it) and the call's (the CPU's first copy in, or last copy
 * out, included). Either is added to the L+o of its view.
 *
 * @param gpuSeconds the span of the DMAs on the GPU
 * @param callSeconds the whole pipeline, as the call around it sees it
 * @param hostBeforeSeconds the CPU's copy before the first DMA can start (host to device: the first
 *     chunk staged), else 0
 * @param hostAfterSeconds the CPU's copy after the last DMA ended (device to host: the last chunk
 *     copied out), else 0
 */
public record PageableStaging(double gpuSeconds, double callSeconds, double hostBeforeSeconds,
    double hostAfterSeconds) {
  /**
   * The pipeline for {@code bytes} in chunks of {@code chunkBytes}.
   *
   * @param hostToDevice the CPU copies first (host to device) or last (device to host)
   * @param memcpyBandwidth the CPU's copy, bytes per second
   * @param dmaBandwidth the DMA of one chunk, bytes per second
   */
  static PageableStaging of(double bytes, double chunkBytes, boolean hostToDevice, double memcpyBandwidth,
      double dmaBandwidth) {
    long chunks = Math.max(1, (long) Math.ceil(bytes / chunkBytes));
    double lastBytes = bytes - (chunks - 1) * chunkBytes;
    // cpu[j] and dma[j]: when chunk j's CPU copy and DMA end; a buffer is reused by chunk j + 2
    double cpuPrev2 = Double.NEGATIVE_INFINITY;
    double cpuPrev = Double.NEGATIVE_INFINITY;
    double dmaPrev2 = Double.NEGATIVE_INFINITY;
    double dmaPrev = Double.NEGATIVE_INFINITY;
    double firstDmaStart = 0;
    for (long j = 0; j < chunks; j++) {
      double c = j == chunks - 1 ? lastBytes : chunkBytes;
      double copy = c / memcpyBandwidth;
      double dma = c / dmaBandwidth;
      double cpu;
      double dmaEnd;
      if (hostToDevice) {
        // fill a free buffer, then DMA it out
        cpu = Math.max(Math.max(cpuPrev, dmaPrev2), 0) + copy;
        double start = Math.max(cpu, Math.max(dmaPrev, 0));
        dmaEnd = start + dma;
        if (j == 0) {
          firstDmaStart = start;
        }
      } else {
        // DMA into a free buffer, then copy it out
        double start = Math.max(Math.max(dmaPrev, cpuPrev2), 0);
        dmaEnd = start + dma;
        cpu = Math.max(cpuPrev, dmaEnd) + copy;
      }
      cpuPrev2 = cpuPrev;
      cpuPrev = cpu;
      dmaPrev2 = dmaPrev;
      dmaPrev = dmaEnd;
    }
    double end = hostToDevice ? dmaPrev : cpuPrev;
    return new PageableStaging(dmaPrev - firstDmaStart, end, hostToDevice ? firstDmaStart : 0,
        hostToDevice ? 0 : cpuPrev - dmaPrev);
  }
}
